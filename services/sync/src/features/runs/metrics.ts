import { counter, gauge, histogram } from '@timetable/observability';

export const syncRunDuration = histogram({
  name: 'sync_run_duration_seconds',
  help: 'Duration of sync runs, by outcome',
  labelNames: ['status'],
  buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300],
});

export const syncEntitiesSeen = gauge({
  name: 'sync_entities_seen',
  help: 'Entities in the snapshot after the latest run, by type',
  labelNames: ['entity_type'],
});

export const syncChangesEmitted = counter({
  name: 'sync_changes_emitted_total',
  help: 'Change records written to the outbox',
  labelNames: ['entity_type', 'action'],
});

export const syncLastSuccess = gauge({
  name: 'sync_last_success_timestamp_seconds',
  help: 'Unix time at which the latest run that fetched the upstream finished',
});

export const syncPairFailures = counter({
  name: 'sync_pair_failures_total',
  help: 'Program or planning-group fetches that failed or were implausible and kept their previous state',
});

export const syncFeedsRead = counter({
  name: 'sync_feeds_read_total',
  help: 'Group feeds read: parsed, or unchanged since the run that built their events and therefore not parsed',
  labelNames: ['outcome'],
});

export const syncRunsSuperseded = counter({
  name: 'sync_runs_superseded_total',
  help: "Runs that committed nothing because another run wrote changes while they ran: two ran at once, a run lock's session having ended",
});

export const syncStoredAnswerChecks = counter({
  name: 'sync_stored_answer_checks_total',
  help: 'Runs that first asked for every answer the last complete run read: all as stored (the run ended there), or one changed or failed (the usual read followed)',
  labelNames: ['outcome'],
});
