import type { Cache } from './cache.js';

interface Entry {
  value: Buffer;
  expiresAt: number;
  /** When the entry last moved to the young end of the LRU order. */
  touchedAt: number;
}

/**
 * A hit moves its entry to the young end at most this often: a hot entry read thousands of times a second
 * stays near that end anyway, and moving it costs a Map delete and insert per read.
 */
const TOUCH_EVERY_MS = 1_000;

/** Embedded mode's cache: an LRU bounded by total bytes (keys and values), with per-entry expiry. */
export class MemoryCache implements Cache {
  private readonly entries = new Map<string, Entry>();
  private readonly versions = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string): Promise<Buffer | null> {
    return Promise.resolve(this.getNow(key));
  }

  /** `get` without a promise: the entry is in this process, and a hit path that awaits nothing saves a few turns of the microtask queue. */
  getNow(key: string): Buffer | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    const now = Date.now();
    if (entry.expiresAt <= now) {
      this.remove(key, entry);
      return null;
    }
    if (now - entry.touchedAt >= TOUCH_EVERY_MS) {
      // Re-inserted to mark it as recently used.
      entry.touchedAt = now;
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  set(key: string, value: Buffer, ttlSeconds: number): Promise<void> {
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    if (sizeOf(key, value) > this.maxBytes) return Promise.resolve();
    const now = Date.now();
    this.entries.set(key, { value, expiresAt: now + ttlSeconds * 1000, touchedAt: now });
    this.bytes += sizeOf(key, value);
    for (const [oldestKey, oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldestKey, oldest);
    }
    return Promise.resolve();
  }

  version(namespace: string): Promise<number> {
    return Promise.resolve(this.versionNow(namespace));
  }

  /** `version` without a promise. */
  versionNow(namespace: string): number {
    return this.versions.get(namespace) ?? 0;
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
    this.bytes -= sizeOf(key, entry.value);
  }
}

/** An entry's share of the budget: its key counts too (two bytes a character, as V8 may hold it), so many small entries under long keys stay bounded. */
function sizeOf(key: string, value: Buffer): number {
  return key.length * 2 + value.length;
}
