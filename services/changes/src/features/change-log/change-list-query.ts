import { z } from 'zod';
import type { ChangeListQuery } from '@timetable/contracts';
import type { ChangeFilter } from './change-store.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

/** The spec's special case: an unparseable since is not a 400 but an empty 200 carrying this error. */
export const INVALID_SINCE = 'Invalid since timestamp';

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Either a filter for the store, or an answer known to be empty without asking it. */
export type ChangeListRequest = { kind: 'query'; filter: ChangeFilter } | { kind: 'empty'; error?: typeof INVALID_SINCE };

/**
 * Turns the parsed GET /changes query into a store filter, or an answer known to be empty. `afterPosition`
 * is where the `after` cursor lies in the log, resolved (or refused) before this.
 */
export function changeListRequest(input: ChangeListQuery, afterPosition?: number): ChangeListRequest {
  const since = input.since === undefined ? undefined : parseInstant(input.since);
  if (since === null) return { kind: 'empty', error: INVALID_SINCE };
  const ids = [input.programId, input.semesterId, input.courseId];
  // A malformed id can equal no stored uuid, so it matches nothing rather than being a 400 (docs/api.md,
  // "Choices where the interface leaves room").
  if (ids.some((id) => id !== undefined && !z.uuid().safeParse(id).success)) return { kind: 'empty' };
  return {
    kind: 'query',
    filter: {
      since,
      entityType: input.entityType,
      action: input.action,
      programId: input.programId,
      semesterId: input.semesterId,
      courseId: input.courseId,
      ...(afterPosition === undefined ? {} : { afterPosition }),
      limit: Math.min(input.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    },
  };
}

/**
 * A date or date-time in ISO 8601 form; without an offset it is read as UTC so the answer does not depend on
 * the server's zone. Impossible calendar dates (2025-02-30) are unparseable, not rolled over.
 */
export function parseInstant(text: string): Date | null {
  const match = ISO_INSTANT.exec(text.trim());
  if (!match) return null;
  const [, year, month, day, hour = '00', minute = '00', second = '00'] = match;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (calendar.getUTCMonth() !== Number(month) - 1 || calendar.getUTCDate() !== Number(day)) return null;
  const normalised = match[4] === undefined ? `${year}-${month}-${day}T00:00:00Z` : withZone(text.trim().replace(' ', 'T'), match[7]);
  const instant = new Date(normalised);
  return Number.isNaN(instant.getTime()) ? null : instant;
}

function withZone(text: string, zone: string | undefined): string {
  if (zone === undefined) return `${text}Z`;
  // Date accepts +01:00 but not +0100.
  return /^[+-]\d{4}$/.test(zone) ? `${text.slice(0, -5)}${zone.slice(0, 3)}:${zone.slice(3)}` : text;
}
