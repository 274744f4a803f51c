import type { EntityState, EventData } from '@timetable/contracts';
import type { IncomingEvent } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import type { CatalogInvalidation } from './catalog-invalidation.js';
import { TABLE_OF, type Row } from './entity-rows.js';
import { linkRowsOf, occurrenceRowsOf } from './event-occurrences.js';
import { reduceBatch } from './projection-batch.js';
import type { ProjectionStore, ProjectionWriter } from './projection-store.js';

export interface ProjectionServiceDeps {
  store: ProjectionStore;
  invalidation: CatalogInvalidation;
  logger: Logger;
  timeZone: string;
}

/** Applies entity states to the catalog tables; idempotent, so replays and redeliveries change nothing. */
export class ProjectionService {
  constructor(private readonly deps: ProjectionServiceDeps) {}

  async apply(events: readonly IncomingEvent<EntityState>[]): Promise<number> {
    const batch = reduceBatch(events, this.deps.logger);
    const changed = await this.deps.store.transaction(async (writer) => {
      let count = 0;
      for (const [type, changes] of batch.byType) {
        const table = TABLE_OF[type];
        const written = await writer.upsert(table, changes.upserts);
        if (type === 'event') await this.materialise(writer, written, batch.events);
        count += written.length + (await writer.remove(table, changes.deletes));
      }
      return count;
    });
    if (changed > 0) await this.deps.invalidation.invalidate();
    this.deps.logger.debug({ received: events.length, changed }, 'projected entity states');
    return changed;
  }

  private async materialise(writer: ProjectionWriter, eventIds: string[], events: ReadonlyMap<string, EventData>): Promise<void> {
    const occurrences: Row[] = [];
    const rooms: Row[] = [];
    const instructors: Row[] = [];
    for (const id of eventIds) {
      const event = events.get(id);
      if (!event) continue;
      try {
        occurrences.push(...occurrenceRowsOf(event, this.deps.timeZone));
      } catch (error) {
        this.deps.logger.warn({ eventId: id, err: error }, 'event cannot be expanded; projected without occurrences');
      }
      rooms.push(...linkRowsOf(id, event.roomIds, 'room_id'));
      instructors.push(...linkRowsOf(id, event.instructorIds, 'instructor_id'));
    }
    await writer.replaceOccurrences(eventIds, occurrences, rooms, instructors);
  }
}
