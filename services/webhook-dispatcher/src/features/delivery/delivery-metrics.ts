import { counter, gauge, histogram } from '@timetable/observability';

export const deliveriesTotal = counter({
  name: 'webhook_deliveries_total',
  help: 'Delivery outcomes: delivered, retrying (attempt failed, more to come), failed (final), postponed (breaker open), given_up (pending past DELIVERY_MAX_PENDING_HOURS)',
  labelNames: ['status'],
});

export const attemptDuration = histogram({
  name: 'webhook_attempt_duration_seconds',
  help: 'Duration of one HTTP delivery attempt',
  labelNames: ['outcome'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

export const dueDeliveries = gauge({
  name: 'webhook_due_deliveries',
  help: 'Pending deliveries whose next attempt is due, at the start of the last cycle',
});
