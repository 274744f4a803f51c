import type { Cache } from './cache.js';
import { ResponseStore, type StoredResponse } from './response-store.js';

export interface HotResponseOptions {
  /**
   * How long a catalog version read from the shared cache is trusted (default 250 ms): the staleness bound.
   * An entry is answered from this process only under a version whose read was sent at most this long ago,
   * so once a version change is in the shared cache, no answer of an older version starts later than this.
   */
  versionCheckMs?: number;
  /** How long an entry is kept here at most (default 5 s), well below the shared cache's own expiry. */
  entryMaxAgeMs?: number;
  /** Bytes of bodies kept here at most (default 32 MiB); the oldest entries go first. */
  maxBytes?: number;
  /** Milliseconds on a monotonic clock (default `performance.now`), for tests. */
  now?: () => number;
}

interface HotEntry {
  response: StoredResponse;
  storedAt: number;
}

/**
 * The shared response store with a copy of the entries this process answered recently, keyed by the catalog
 * version they belong to. A hit in the shared cache costs two round trips (the version, then the entry); here
 * the version is read at most every `versionCheckMs`, and a hot entry under it is answered without a round
 * trip (and without a promise). A version change empties the copy: an entry never outlives its version here
 * by more than `versionCheckMs`.
 */
export class HotResponseStore extends ResponseStore {
  private readonly versionCheckMs: number;
  private readonly entryMaxAgeMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private readonly entries = new Map<string, HotEntry>();
  private bytes = 0;
  private trusted: { version: number; readSentAt: number } | undefined;
  private versionRead: Promise<number> | undefined;

  constructor(cache: Cache, options: HotResponseOptions = {}) {
    super(cache);
    this.versionCheckMs = options.versionCheckMs ?? 250;
    this.entryMaxAgeMs = options.entryMaxAgeMs ?? 5_000;
    this.maxBytes = options.maxBytes ?? 32 * 2 ** 20;
    this.now = options.now ?? (() => performance.now());
  }

  override current(key: string): StoredResponse | null | Promise<StoredResponse | null> {
    const now = this.now();
    const trusted = this.trusted;
    if (!trusted || now - trusted.readSentAt > this.versionCheckMs) return this.checkedVersion().then((version) => this.hotOrRead(version, key));
    return this.hotOrRead(trusted.version, key);
  }

  /** The copy here (emptied when the version changed), else the shared cache's entry. */
  private hotOrRead(version: number, key: string): StoredResponse | Promise<StoredResponse | null> {
    const hot = this.entries.get(key);
    if (hot && this.now() - hot.storedAt <= this.entryMaxAgeMs) return hot.response;
    return this.lookUp(version, key);
  }

  /** The version from the shared cache, one read at a time however many requests wait for it. */
  private checkedVersion(): Promise<number> {
    if (this.versionRead) return this.versionRead;
    const sentAt = this.now();
    const read = this.version().then((version) => {
      if (this.trusted?.version !== version) this.forgetAll();
      this.trusted = { version, readSentAt: sentAt };
      return version;
    });
    this.versionRead = read;
    const done = () => {
      if (this.versionRead === read) this.versionRead = undefined;
    };
    read.then(done, done);
    return read;
  }

  private async lookUp(version: number, key: string): Promise<StoredResponse | null> {
    const response = await this.get(version, key);
    // Kept only while its version is still the trusted one: a change read meanwhile must not see it again.
    if (response && this.trusted?.version === version) this.remember(key, response);
    return response;
  }

  private remember(key: string, response: StoredResponse): void {
    if (response.body.length > this.maxBytes) return;
    this.forget(key);
    this.entries.set(key, { response, storedAt: this.now() });
    this.bytes += response.body.length;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const hot = this.entries.get(key);
    if (!hot) return;
    this.entries.delete(key);
    this.bytes -= hot.response.body.length;
  }

  private forgetAll(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
