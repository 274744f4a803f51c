import type { RoomResource, RoomScheduleEntry } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { containsPattern } from '../../sql/contains-pattern.js';

export interface RoomFilter {
  search?: string;
  building?: string;
}

/** A row of `rooms`, as every room query selects it. */
export interface RoomRow {
  id: string;
  name: string;
  building: string;
  campus: string;
  capacity: number;
  tags: string[];
}

interface ScheduleRow {
  event_id: string;
  start_time: Date;
  end_time: Date;
  summary: string;
}

export function toRoom(row: RoomRow): RoomResource {
  return { id: row.id, name: row.name, building: row.building, campus: row.campus, capacity: row.capacity, tags: row.tags };
}

export interface RoomsStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class RoomsStore {
  private readonly knex: Knex;

  constructor(deps: RoomsStoreDeps) {
    this.knex = deps.knex;
  }

  async list(filter: RoomFilter): Promise<RoomResource[]> {
    const query = this.knex<RoomRow>('rooms').orderByRaw('lower(name), name, id');
    if (filter.search !== undefined) query.whereILike('name', containsPattern(filter.search));
    if (filter.building !== undefined) query.where('building', filter.building);
    const rows: RoomRow[] = await query;
    return rows.map(toRoom);
  }

  async byId(id: string): Promise<RoomResource | null> {
    const row: RoomRow | undefined = await this.knex<RoomRow>('rooms').where('id', id).first();
    return row ? toRoom(row) : null;
  }

  /** Occurrences of every event held (also) in the room, starting in [from, to), by start. */
  async schedule(roomId: string, from: Date, to: Date): Promise<RoomScheduleEntry[]> {
    const rows: ScheduleRow[] = await this.knex('event_rooms as er')
      .join('occurrences as o', 'o.event_id', 'er.event_id')
      .join('events as e', 'e.id', 'o.event_id')
      .leftJoin('courses as c', 'c.id', 'o.course_id')
      .where('er.room_id', roomId)
      .andWhere('o.start_time', '>=', from)
      .andWhere('o.start_time', '<', to)
      .select('o.event_id', 'o.start_time', 'o.end_time', this.knex.raw('coalesce(c.name, e.title) as summary'))
      .orderBy([{ column: 'o.start_time' }, { column: 'o.event_id' }]);
    return rows.map((row) => ({
      id: row.event_id,
      summary: row.summary,
      startTime: row.start_time.toISOString(),
      endTime: row.end_time.toISOString(),
      weekday: row.start_time.getUTCDay(),
    }));
  }
}
