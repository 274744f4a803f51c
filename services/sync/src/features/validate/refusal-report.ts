/**
 * Counts every refused record (sync_upstream_records_rejected_total) and logs it once, where it was read: the
 * request, and the program (og) and planning group (pgid) it belongs to where it belongs to one. An answer with
 * very many refusals logs the first few and a summary, so a broken feed cannot flood the log.
 */
import type { Logger } from '@timetable/observability';
import { upstreamRecordsRejected } from './metrics.js';
import type { Refusal } from './refusal.js';

/** Where refused records were read. */
export interface RefusalPlace {
  /** The request, relative to the base URL (`json?m=getros&loc=3`). */
  request: string;
  og?: number;
  pgid?: number;
}

/** Refusals of one answer logged one by one; past this, one line sums up the rest. */
const LOGGED_PER_ANSWER = 10;

export class RefusalReport {
  constructor(private readonly logger?: Logger) {}

  report(refused: readonly Refusal[], place: RefusalPlace): void {
    for (const { kind, reason } of refused) upstreamRecordsRejected.inc({ kind, reason });
    if (this.logger === undefined) return;
    for (const refusal of refused.slice(0, LOGGED_PER_ANSWER)) {
      const pgid = place.pgid ?? refusal.pgid;
      this.logger.warn(
        { ...place, ...(pgid === undefined ? {} : { pgid }), kind: refusal.kind, reason: refusal.reason, upstreamId: refusal.id, detail: refusal.detail },
        'upstream record refused at the boundary',
      );
    }
    if (refused.length > LOGGED_PER_ANSWER) {
      const byReason: Record<string, number> = {};
      for (const { reason } of refused.slice(LOGGED_PER_ANSWER)) byReason[reason] = (byReason[reason] ?? 0) + 1;
      this.logger.warn({ ...place, more: refused.length - LOGGED_PER_ANSWER, byReason }, 'more upstream records of this answer refused');
    }
  }
}
