import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { ALL_TOPICS } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import { deadLetterTopicOf } from '../kafka/dead-letters.js';
import { KafkaBus } from '../kafka/kafka-bus.js';
import { counterValue, type ConsumerTestBed, type PutAsideView } from './test-bed.js';

/** Kafka with the registry, on topics of a fresh prefix; a consumer that gives up is logged, not fatal. */
export async function kafkaTestBed(settings: { brokers: string[]; schemaRegistryUrl: string; logger: Logger }): Promise<ConsumerTestBed> {
  const prefix = `bed${randomUUID().slice(0, 8)}.`;
  const bus = new KafkaBus({
    ...settings,
    clientId: 'consumer-test-bed',
    topics: ALL_TOPICS,
    topicPrefix: prefix,
    onConsumerFailure: (error) => settings.logger.error({ err: error }, 'a consumer of the test bed gave up'),
  });
  await bus.connect();
  const kafka = new Kafka({ brokers: settings.brokers, clientId: 'consumer-test-bed-reader', logLevel: logLevel.NOTHING });
  return {
    mode: 'kafka',
    bus,
    publish: (events) => bus.publish(events),
    backlog: () => Promise.resolve(0),
    putAside: async (topic) => (await readAll(kafka, deadLetterTopicOf(prefix + topic))).map(viewOf),
    async startGroupAtEnd(group, topic) {
      const admin = kafka.admin();
      await admin.connect();
      try {
        const ends = await admin.fetchTopicOffsets(prefix + topic);
        await admin.setOffsets({ groupId: prefix + group, topic: prefix + topic, partitions: ends.map(({ partition, high }) => ({ partition, offset: high })) });
      } finally {
        await admin.disconnect();
      }
    },
    countedPutAside: (group, topic) => counterValue('events_dead_lettered_total', { group: prefix + group, topic: prefix + topic, reason: 'unapplicable' }),
    countedRetries: (group, topic) => counterValue('events_consumer_retries_total', { group: prefix + group, topic: prefix + topic }),
    close: () => bus.disconnect(),
  };
}

/** Every message of a topic so far, read by a throw-away group. */
async function readAll(kafka: Kafka, topic: string): Promise<KafkaMessage[]> {
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  const total = offsets.reduce((sum, partition) => sum + Number(partition.high) - Number(partition.low), 0);
  if (total === 0) return [];
  const reader = kafka.consumer({ groupId: `test-bed-reader-${randomUUID()}` });
  const messages: KafkaMessage[] = [];
  await reader.connect();
  try {
    await reader.subscribe({ topic, fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void messages.push(message) });
    const deadline = Date.now() + 30_000;
    while (messages.length < total) {
      if (Date.now() > deadline) throw new Error(`read ${messages.length} of the ${total} messages of ${topic}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await reader.disconnect();
  }
  return messages;
}

function viewOf(message: KafkaMessage): PutAsideView {
  const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
  return {
    group: headers.dlq_group ?? '',
    key: message.key?.toString('utf8') ?? '',
    value: valueOf(message.value),
    headers,
    error: headers.dlq_error ?? '',
    attempts: Number(headers.dlq_attempts ?? 0),
  };
}

/** The JSON document of a value, behind the registry's wire-format header (a zero byte and the schema id). */
function valueOf(bytes: Buffer | null): unknown {
  if (bytes === null) return null;
  return JSON.parse((bytes[0] === 0 ? bytes.subarray(5) : bytes).toString('utf8'));
}
