export type { EventBus, EventConsumer, IncomingEvent, OutgoingEvent, SubscriptionOptions } from './event-bus.js';
export { InProcessBus } from './in-process-bus.js';
export { KafkaBus, type KafkaBusSettings } from './kafka/kafka-bus.js';
export { jsonSchemaOf } from './kafka/schema-codec.js';
export { createOutboxTable } from './outbox/outbox-migration.js';
export { appendToOutbox } from './outbox/outbox-writer.js';
export { OutboxRelay, type OutboxRelaySettings } from './outbox/outbox-relay.js';
export { consumerReadiness, DEFAULT_MAX_CONSUMER_LAG } from './consumer-readiness.js';
export { openDistributedBackends, type DistributedBackendSettings, type DistributedBackends } from './distributed-backends.js';
