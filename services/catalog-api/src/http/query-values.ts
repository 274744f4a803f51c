import { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs: anything else in a path is an unknown id, in a query filter it matches nothing. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

// The 'simple' query parser gives an array for a repeated parameter; the first one counts.
function firstValue(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** The query with every repeated parameter reduced to its first value, for schemas of single values. */
export function firstValues(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).map(([name, value]) => [name, firstValue(value)]));
}

/** An optional single-valued query parameter. */
export const optionalText = z.preprocess(firstValue, z.string().optional());

/**
 * A comma-separated id filter: entries trimmed, empty ones dropped; undefined when nothing remains
 * (no filter). Malformed ids stay in the list: the caller decides that they match nothing.
 */
export function idList(value: unknown): string[] | undefined {
  const raw = Array.isArray(value) ? value.join(',') : value;
  if (typeof raw !== 'string') return undefined;
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.length > 0 ? entries : undefined;
}
