import type { Producer } from 'kafkajs';

/** A message that can never be decoded, with where it came from and why it was refused. */
export interface DeadLetter {
  topic: string;
  partition: number;
  offset: string;
  group: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, string>;
  error: string;
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
 * say where the message was and why it was refused, so an operator can inspect, fix and replay it.
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
