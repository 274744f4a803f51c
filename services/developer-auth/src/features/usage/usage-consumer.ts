import { topics } from '@timetable/contracts';
import type { EventBus, EventConsumer } from '@timetable/events';
import type { UsageStore } from './usage-store.js';

export const USAGE_GROUP_ID = 'developer-auth';

/** Records the gateway's usage events; ids make redelivery harmless. */
export function subscribeUsage(bus: EventBus, store: UsageStore): EventConsumer {
  return bus.subscribe({
    groupId: USAGE_GROUP_ID,
    topic: topics.usage,
    fromBeginning: true,
    handleBatch: async (events) => {
      await store.record(events.flatMap((event) => (event.value === null ? [] : [event.value])));
    },
  });
}
