import type { Cache } from './cache.js';

interface Entry {
  value: Buffer;
  expiresAt: number;
}

/** Embedded mode's cache: an LRU bounded by total bytes, with per-entry expiry. */
export class MemoryCache implements Cache {
  private readonly entries = new Map<string, Entry>();
  private readonly versions = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string): Promise<Buffer | null> {
    const entry = this.entries.get(key);
    if (!entry) return Promise.resolve(null);
    if (entry.expiresAt <= Date.now()) {
      this.remove(key, entry);
      return Promise.resolve(null);
    }
    // Re-insert to mark as most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return Promise.resolve(entry.value);
  }

  set(key: string, value: Buffer, ttlSeconds: number): Promise<void> {
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    if (value.length > this.maxBytes) return Promise.resolve();
    this.entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    this.bytes += value.length;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldestKey, oldest);
    }
    return Promise.resolve();
  }

  version(namespace: string): Promise<number> {
    return Promise.resolve(this.versions.get(namespace) ?? 0);
  }

  bump(namespace: string): Promise<number> {
    const next = (this.versions.get(namespace) ?? 0) + 1;
    this.versions.set(namespace, next);
    return Promise.resolve(next);
  }

  close(): Promise<void> {
    this.entries.clear();
    return Promise.resolve();
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.value.length;
  }
}
