import { ValidationError } from '@timetable/http';
import type { ChangeStore } from './change-store.js';

/**
 * Where the `after` cursor lies in the log. An id the log does not hold is refused rather than matching
 * nothing: a poller given an empty page would take itself to be up to date, and stay behind for ever.
 */
export async function cursorPosition(store: ChangeStore, after: string): Promise<number> {
  const position = await store.positionOf(after);
  if (position === undefined) {
    const message = `${after} is not the id of a change in the log`;
    throw new ValidationError(`Query validation failed: after: ${message}`, { issues: [{ path: 'after', message }] });
  }
  return position;
}
