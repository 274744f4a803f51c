/**
 * A change reaches the outbox only when each of its messages matches its topic's schema, the check the
 * producer makes before Kafka: a message the producer refuses would stay at the head of the outbox and hold
 * up every later one. A refused change is left out like a failed fetch: its entity keeps its previous
 * snapshot version, nothing is emitted for it, and the run reports it as an error of its program/semester.
 */
import { ALL_TOPICS, type TopicDefinition } from '@timetable/contracts';
import type { OutgoingEvent } from '@timetable/events';
import { z } from 'zod';
import type { EntityChange } from '../diff/diff-snapshots.js';
import { changeMessages, relationsOf } from './change-messages.js';
import type { PairError } from './sync-run-store.js';

export interface GuardedChanges {
  accepted: EntityChange[];
  /** The outbox messages of the accepted changes, as they were checked. */
  messages: OutgoingEvent[];
  rejected: PairError[];
}

const topicsByName = new Map<string, TopicDefinition>(ALL_TOPICS.map((topic) => [topic.name, topic]));
// A refused entity may carry anything where its relations should be; only real ids name a pair.
const idOrNull = (value: string | null): string | null => (z.uuid().safeParse(value).success ? value : null);

function problemOf(event: OutgoingEvent): string | undefined {
  const topic = topicsByName.get(event.topic);
  if (!topic || event.value === null) return undefined;
  const parsed = topic.schema.safeParse(event.value);
  return parsed.success ? undefined : `does not match the ${topic.name} schema: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`;
}

/** Call it with a chunk of changes at a time: the messages of every accepted change are kept until written. */
export function guardChanges(changes: readonly EntityChange[], syncRunId: string, now: Date): GuardedChanges {
  const guarded: GuardedChanges = { accepted: [], messages: [], rejected: [] };
  for (const change of changes) {
    const { events } = changeMessages(change, syncRunId, now);
    const problem = events.map(problemOf).find((found) => found !== undefined);
    if (problem === undefined) {
      guarded.accepted.push(change);
      guarded.messages.push(...events);
      continue;
    }
    const { programId, semesterId } = relationsOf(change);
    const errorMessage = `${change.entityType} ${change.entityId} ${problem}`;
    guarded.rejected.push({ errorMessage, programId: idOrNull(programId), semesterId: idOrNull(semesterId), occurredAt: now });
  }
  return guarded;
}
