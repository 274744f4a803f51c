import { counter } from '@timetable/observability';

/** Labels: `kind` one of RECORD_KINDS, `reason` one of REFUSAL_REASONS (refusal.ts): both bounded. */
export const upstreamRecordsRejected = counter({
  name: 'sync_upstream_records_rejected_total',
  help: 'Upstream records (and answers) refused at the boundary because the mirror cannot interpret them, by kind and reason',
  labelNames: ['kind', 'reason'],
});
