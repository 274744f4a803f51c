/** A content hash that ignores key order: the same entity data always hashes the same. */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level; arrays keep their order (it is meaningful). */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => stableStringify(item === undefined ? null : item)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableStringify(item)}`).join(',')}}`;
}

export function contentHash(data: unknown): string {
  return createHash('sha256').update(stableStringify(data)).digest('hex');
}
