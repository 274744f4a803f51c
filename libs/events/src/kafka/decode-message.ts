import type { KafkaMessage } from 'kafkajs';
import type { TopicDefinition } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import type { IncomingEvent } from '../event-bus.js';
import { validateEventValue } from '../validate-event.js';
import type { DeadLetter } from './dead-letters.js';
import { UndecodableMessageError, type ValueCodec } from './schema-codec.js';

export type Decoded<T> = { event: IncomingEvent<T> } | { deadLetter: DeadLetter };

export interface DecodingContext {
  codec: ValueCodec;
  /** The physical topic, whose schema the value must pass. */
  topic: TopicDefinition;
  group: string;
  logger: Logger;
}

/** An event, a dead letter for a message no retry can decode, or a throw for an outage (retried). */
export async function decodeMessage<T>(context: DecodingContext, partition: number, message: KafkaMessage): Promise<Decoded<T>> {
  const topic = context.topic.name;
  const key = message.key?.toString('utf8') ?? '';
  const headers = headersOf(message);
  try {
    const raw = message.value === null ? null : await context.codec.decode(message.value);
    const checked = validateEventValue(context.topic, raw);
    if (!checked.ok) throw new UndecodableMessageError(checked.reason);
    return { event: { topic, key, value: checked.value as T | null, headers, partition, offset: message.offset } };
  } catch (error) {
    if (!(error instanceof UndecodableMessageError)) throw error;
    context.logger.warn({ err: error, topic, partition, offset: message.offset, key }, 'undecodable event goes to the dead-letter topic');
    return { deadLetter: letterOf(message, { topic, partition, group: context.group, error: error.message, reason: 'undecodable', attempts: 0 }) };
  }
}

/** The message as it was, for its dead-letter topic, and why it was put aside. */
export function letterOf(message: KafkaMessage, origin: Omit<DeadLetter, 'offset' | 'key' | 'value' | 'headers'>): DeadLetter {
  return { ...origin, offset: message.offset, key: message.key, value: message.value, headers: headersOf(message) };
}

function headersOf(message: KafkaMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String).join(',') : value.toString();
  }
  return headers;
}
