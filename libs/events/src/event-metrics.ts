import { counter, gauge } from '@timetable/observability';

export const eventsPublished = counter({
  name: 'events_published_total',
  help: 'Events published, by topic',
  labelNames: ['topic'],
});

export const eventsConsumed = counter({
  name: 'events_consumed_total',
  help: 'Events handled by a consumer group, by topic',
  labelNames: ['group', 'topic'],
});

export const eventsDeadLettered = counter({
  name: 'events_dead_lettered_total',
  help: 'Records put aside (Kafka: <topic>.dlq; embedded: the dead_letters table), by reason: undecodable (wire format, JSON or schema) or unapplicable (the handler refused its data)',
  labelNames: ['group', 'topic', 'reason'],
});

export const consumerRetries = counter({
  name: 'events_consumer_retries_total',
  help: 'Batch steps retried because something they need (registry, database) failed',
  labelNames: ['group', 'topic'],
});

export const consumerLag = gauge({
  name: 'events_consumer_lag_messages',
  help: 'Messages a consumer group still has to read, by topic',
  labelNames: ['group', 'topic'],
});
