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

export const eventsRejected = counter({
  name: 'events_rejected_total',
  help: 'Events skipped because they could not be decoded or failed their schema',
  labelNames: ['group', 'topic'],
});

export const consumerLag = gauge({
  name: 'events_consumer_lag_messages',
  help: 'Messages a consumer group still has to read, by topic',
  labelNames: ['group', 'topic'],
});
