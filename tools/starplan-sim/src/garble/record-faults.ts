/**
 * Faults put into single records of an answer, for tests and chaos runs of a consumer's validation: what a
 * hand-maintained timetable or an Outlook-made feed really carries, and what no column or calendar holds.
 */
import { z } from 'zod';

export const RECORD_FAULTS = [
  /** A date that does not exist: a planning unit's startdate, a VEVENT's DTSTART and DTEND on 30 February. */
  'impossible_date',
  /** A VEVENT starting at 24:00:00. */
  'impossible_time',
  /** A VEVENT's TZID as Outlook writes it (`W. Europe Standard Time`, which is Europe/Berlin): still valid. */
  'windows_zone',
  /** A VEVENT's TZID no zone database knows. */
  'unknown_zone',
  /** A VEVENT's DTEND before its DTSTART, a planning unit's enddate before its startdate. */
  'end_before_start',
  /** A room's seats (another record's id) of 3,000,000,000; a VEVENT's DTEND five years after its DTSTART. */
  'huge_number',
  /** A name (a VEVENT's DESCRIPTION) of two megabytes. */
  'huge_string',
  /** The answer lists `count` copies of the record as the faults before this one left it (a million by default). */
  'huge_list',
  /** The answer padded with whitespace to `bytes` (64 MiB by default), still well-formed. */
  'oversized',
] as const;

export type RecordFaultName = (typeof RECORD_FAULTS)[number];

export const recordFaultSchema = z.object({
  fault: z.enum(RECORD_FAULTS),
  /** The record: an item's id in a JSON list (a lecture's, within getPgsExt), an occurrence's id in a feed; unset: the first. */
  recordId: z.number().int().nonnegative().optional(),
  /** huge_list: how many copies. */
  count: z.number().int().min(1).max(5_000_000).optional(),
  /** oversized: the answer's size. */
  bytes: z.number().int().min(1).max(512 * 2 ** 20).optional(),
});

export type RecordFault = z.infer<typeof recordFaultSchema>;

export const HUGE_NUMBER = 3_000_000_000;
export const HUGE_STRING_LENGTH = 2 * 2 ** 20;
export const DEFAULT_HUGE_LIST = 1_000_000;
export const DEFAULT_OVERSIZED_BYTES = 64 * 2 ** 20;

export const hugeString = (): string => 'x'.repeat(HUGE_STRING_LENGTH);

/** The answer's bytes grown to the size an `oversized` fault asks for: JSON and iCal both ignore trailing whitespace. */
export function padded(bytes: Buffer, faults: readonly RecordFault[] | undefined): Buffer {
  const oversized = faults?.find((fault) => fault.fault === 'oversized');
  if (oversized === undefined) return bytes;
  const size = oversized.bytes ?? DEFAULT_OVERSIZED_BYTES;
  return size <= bytes.length ? bytes : Buffer.concat([bytes, Buffer.alloc(size - bytes.length, 0x0a)]);
}
