/** RFC 4122 name-based UUIDs (version 5, SHA-1): the same upstream key gives the same id on every sync. */
import { createHash } from 'node:crypto';

/** The project's fixed namespace; changing it would change every id the service has ever published. */
export const TIMETABLE_NAMESPACE = '6f1f3b8e-4c1d-5a7e-9b2f-7d3c1e8a4b60';

export function uuidV5(name: string, namespace: string = TIMETABLE_NAMESPACE): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (namespaceBytes.length !== 16) throw new TypeError(`not a UUID namespace: ${namespace}`);
  const hash = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
