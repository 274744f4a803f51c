import { topics } from '@timetable/contracts';
import type { EventBus, EventConsumer } from '@timetable/events';
import type { ProjectionService } from './projection-service.js';

export const PROJECTION_GROUP_ID = 'catalog-api';

/** Feeds timetable.entities.v1 from its beginning into the projection: the catalog can always be rebuilt. */
export function subscribeProjection(bus: EventBus, service: ProjectionService): EventConsumer {
  return bus.subscribe({
    groupId: PROJECTION_GROUP_ID,
    topic: topics.entities,
    fromBeginning: true,
    handleBatch: async (events) => {
      await service.apply(events);
    },
  });
}
