/**
 * Response cache port. Entries are keyed by a namespace version, so invalidation is one `bump` that
 * every replica sees (Redis) instead of a scan-and-delete.
 */
export interface Cache {
  get(key: string): Promise<Buffer | null>;
  set(key: string, value: Buffer, ttlSeconds: number): Promise<void>;
  version(namespace: string): Promise<number>;
  bump(namespace: string): Promise<number>;
  close(): Promise<void>;
}
