import type { Producer } from 'kafkajs';
import type { DeadLetterReason } from '../poison/put-aside.js';

/** A message put aside (never decodable, or never applicable), with where it came from and why. */
export interface DeadLetter {
  topic: string;
  partition: number;
  offset: string;
  group: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, string>;
  error: string;
  reason: DeadLetterReason;
  /** How often its handler tried it (0 for a message that could not be decoded). */
  attempts: number;
}

export interface DeadLetterSink {
  send(letters: DeadLetter[]): Promise<void>;
}

/** `<topic>.dlq` beside every topic (the physical, prefixed name), created with the topic itself. */
export function deadLetterTopicOf(topic: string): string {
  return `${topic}.dlq`;
}

/**
 * Writes dead letters with the original key, value bytes and headers untouched, plus `dlq_*` headers that
 * say where the message was and why it was put aside, so an operator can inspect, fix and replay it.
 */
export class KafkaDeadLetterSink implements DeadLetterSink {
  constructor(private readonly producer: () => Producer | undefined) {}

  async send(letters: DeadLetter[]): Promise<void> {
    const producer = this.producer();
    if (!producer) throw new Error('dead-letter producer not connected');
    const byTopic = new Map<string, DeadLetter[]>();
    for (const letter of letters) byTopic.set(letter.topic, [...(byTopic.get(letter.topic) ?? []), letter]);
    await producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, group]) => ({
        topic: deadLetterTopicOf(topic),
        messages: group.map((letter) => ({
          key: letter.key,
          value: letter.value,
          headers: {
            ...letter.headers,
            dlq_error: letter.error,
            dlq_reason: letter.reason,
            dlq_attempts: String(letter.attempts),
            dlq_topic: letter.topic,
            dlq_partition: String(letter.partition),
            dlq_offset: letter.offset,
            dlq_group: letter.group,
            dlq_time: new Date().toISOString(),
          },
        })),
      })),
    });
  }
}
