/** A record refused at the boundary: what kind it was, why (both bounded, they label a metric) and in words. */
import type { z } from 'zod';
import { MAX_INTEGER } from './bounds.js';

export const RECORD_KINDS = ['planning_unit', 'location', 'program', 'planning_group', 'lecture', 'room', 'lecturer', 'event', 'answer'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export const REFUSAL_REASONS = [
  /** A field missing or of the wrong type, a value in a form the mirror cannot read. */
  'malformed',
  /** A date that does not exist (30 February, month 13). */
  'impossible_date',
  /** A time of day that does not exist (24:00, 08:61). */
  'impossible_time',
  'date_out_of_range',
  'unknown_zone',
  'end_not_after_start',
  'duration_too_long',
  'number_out_of_range',
  'string_too_long',
  /** A list, feed or nested list with more items than allowed. */
  'too_many_records',
  /** An answer larger than UPSTREAM_MAX_BODY_BYTES. */
  'too_large',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface Refusal {
  kind: RecordKind;
  reason: RefusalReason;
  /** The record's upstream id, when it could be read. */
  id: number | null;
  detail: string;
  /** The planning group a refused lecture was listed in. */
  pgid?: number;
}

/** Records of one answer as checked: those that passed, those refused, and why the answer as a whole cannot be used. */
export interface CheckedAnswer<T> {
  records: T[];
  refused: Refusal[];
  /** Set when the answer fails as an unreadable one does (its request's scope keeps what it had). */
  unusable?: string;
}

/** The reason a refinement names in its params, else the one its first issue's code says. */
export function reasonOf(issues: readonly z.core.$ZodIssue[]): RefusalReason {
  const [issue] = issues;
  if (issue === undefined) return 'malformed';
  if (issue.code === 'custom') return (issue.params?.reason as RefusalReason | undefined) ?? 'malformed';
  if (issue.code === 'too_big' || issue.code === 'too_small') {
    if (issue.origin === 'string') return 'string_too_long';
    if (issue.origin === 'array') return 'too_many_records';
    return 'number_out_of_range';
  }
  return 'malformed';
}

/** The first issue, short: `seats: Too big: expected number to be <=2147483647`. */
export function detailOf(issues: readonly z.core.$ZodIssue[]): string {
  const [issue] = issues;
  if (issue === undefined) return 'invalid';
  const path = issue.path.join('.');
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

/** The id of a record that failed validation, if it has one that a valid record could have. */
export function readableId(item: unknown, field = 'id'): number | null {
  const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[field] : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 && id <= MAX_INTEGER ? id : null;
}

/** The valve's rule for refusals: a list or feed that loses most of its records is taken for a broken answer. */
export function refusedMost(refused: number, total: number): boolean {
  return refused > 0 && refused * 2 > total;
}
