import { topics, type ChangeEvent } from '@timetable/contracts';
import type { EventBus, EventConsumer, IncomingEvent } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import type { MatchStore } from './match-store.js';

export const MATCHER_GROUP_ID = 'webhook-dispatcher';

/**
 * Consumes timetable.changes.v1 and queues deliveries. A new consumer group starts at the end of the
 * topic (a fresh deployment must not flood subscribers with history); from then on committed offsets
 * and the idempotent insert give at-least-once transport with exactly-once effect.
 */
export interface ChangeMatcherDeps {
  bus: EventBus;
  store: MatchStore;
  logger: Logger;
  now: () => Date;
  /** The consumer group; MATCHER_GROUP_ID unless given. */
  groupId?: string;
}

export function subscribeChangeMatcher({ bus, store, logger, now, groupId = MATCHER_GROUP_ID }: ChangeMatcherDeps): EventConsumer {
  return bus.subscribe({
    groupId,
    topic: topics.changes,
    fromBeginning: false,
    handleBatch: async (events: IncomingEvent<ChangeEvent>[]) => {
      const changes = events.flatMap((event) => (event.value ? [event.value] : []));
      const queued = await store.queueMatches(changes, now());
      if (queued > 0) logger.debug({ changes: changes.length, queued }, 'deliveries queued');
    },
  });
}
