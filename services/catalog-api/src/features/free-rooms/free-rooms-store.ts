import type { RoomResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { toRoom, type RoomRow } from '../rooms/rooms-store.js';

export interface FreeRoomsFilter {
  from: Date;
  to: Date;
  building?: string | undefined;
  minCapacity?: number | undefined;
}

export interface FreeRoomsStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class FreeRoomsStore {
  private readonly knex: Knex;

  constructor(deps: FreeRoomsStoreDeps) {
    this.knex = deps.knex;
  }

  /**
   * Rooms no occurrence overlaps in [from, to). Overlap is strict on both ends (starts before `to`, ends
   * after `from`), so back-to-back bookings touching the window leave the room free. Every room of an
   * event counts, through event_rooms.
   */
  async free(filter: FreeRoomsFilter): Promise<RoomResource[]> {
    const query = this.knex<RoomRow>('rooms as r')
      .select('r.id', 'r.name', 'r.building', 'r.campus', 'r.capacity', 'r.tags')
      .whereNotExists((busy) => {
        busy
          .select(this.knex.raw('1'))
          .from('event_rooms as er')
          .join('occurrences as o', 'o.event_id', 'er.event_id')
          .whereRaw('er.room_id = r.id')
          .andWhere('o.start_time', '<', filter.to)
          .andWhere('o.end_time', '>', filter.from);
      })
      .orderByRaw('lower(r.building), r.building, lower(r.name), r.name, r.id');
    if (filter.building !== undefined) query.where('r.building', filter.building);
    if (filter.minCapacity !== undefined) query.where('r.capacity', '>=', filter.minCapacity);
    const rows: RoomRow[] = await query;
    return rows.map(toRoom);
  }
}
