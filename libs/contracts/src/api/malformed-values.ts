import type { z } from 'zod';

const tolerant = new WeakSet<z.ZodType>();

/**
 * Marks a query parameter whose answer to a malformed value the interface fixes, so that a control character
 * in it is one more malformed value rather than a 400: the id lists of the week views and the personal feed
 * (an invalid id matches nothing, never a 400) and `/changes` `since` (unparseable: 200 with an error field).
 * The service that reads such a parameter must keep a malformed value away from its database. Every other
 * query parameter and every body string refuses control characters (400 VALIDATION_ERROR naming it).
 */
export function toleratingControlCharacters<S extends z.ZodType>(schema: S): S {
  tolerant.add(schema);
  return schema;
}

/** True for a parameter schema marked with `toleratingControlCharacters`. */
export function toleratesControlCharacters(schema: z.ZodType | undefined): boolean {
  return schema !== undefined && tolerant.has(schema);
}
