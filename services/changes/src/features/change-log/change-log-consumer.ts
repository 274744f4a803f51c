import { topics } from '@timetable/contracts';
import type { EventBus, EventConsumer } from '@timetable/events';
import type { ChangeStore } from './change-store.js';

export const CHANGES_GROUP_ID = 'changes';

/**
 * Materialises timetable.changes.v1 into the change log. It reads from the beginning so a new replica
 * rebuilds the whole log; the store ignores ids it already holds, which makes redelivery harmless.
 */
export function subscribeChangeLog(bus: EventBus, store: ChangeStore): EventConsumer {
  return bus.subscribe({
    groupId: CHANGES_GROUP_ID,
    topic: topics.changes,
    fromBeginning: true,
    handleBatch: async (events) => {
      const changes = events.flatMap((event) => (event.value === null ? [] : [event.value]));
      await store.append(changes);
    },
  });
}
