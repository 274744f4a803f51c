export type { EventBus, EventConsumer, EventOf, IncomingEvent, OutgoingEvent, SubscriptionOptions } from './event-bus.js';
export { InProcessBus } from './in-process-bus.js';
export { KafkaBus, type KafkaBusSettings } from './kafka/kafka-bus.js';
export { createOutboxTable } from './outbox/outbox-migration.js';
export { createDeadLetterTable, DeadLetterTable } from './outbox/dead-letter-table.js';
export type { DeadLetterStore, PutAsideRecord } from './in-process/dead-letter-store.js';
export { appendToOutbox } from './outbox/outbox-writer.js';
export { OutboxRelay, type OutboxRelaySettings } from './outbox/outbox-relay.js';
export { consumerReadiness } from './consumer-readiness.js';
