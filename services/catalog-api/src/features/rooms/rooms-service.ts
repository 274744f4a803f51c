import type { RoomResource, RoomScheduleEntry } from '@timetable/contracts';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { RoomFilter, RoomsStore } from './rooms-store.js';

/** The room schedule's default window: now to now plus 180 days. */
export const DEFAULT_SCHEDULE_DAYS = 180;
const MS_PER_DAY = 86_400_000;

export interface RoomSchedule {
  room: RoomResource;
  period: { from: string; to: string };
  courses: RoomScheduleEntry[];
}

export interface RoomsServiceDeps {
  rooms: RoomsStore;
  now: () => Date;
}

export class RoomsService {
  private readonly rooms: RoomsStore;
  private readonly now: () => Date;

  constructor(deps: RoomsServiceDeps) {
    this.rooms = deps.rooms;
    this.now = deps.now;
  }

  list(filter: RoomFilter): Promise<RoomResource[]> {
    return this.rooms.list(filter);
  }

  async get(id: string): Promise<RoomResource> {
    const room = isUuid(id) ? await this.rooms.byId(id) : null;
    if (!room) throw new NotFoundError('room', id);
    return room;
  }

  async schedule(id: string, window: { from?: Date; to?: Date }): Promise<RoomSchedule> {
    const room = await this.get(id);
    const from = window.from ?? this.now();
    const to = window.to ?? new Date(from.getTime() + DEFAULT_SCHEDULE_DAYS * MS_PER_DAY);
    const courses = await this.rooms.schedule(room.id, from, to);
    return { room, period: { from: from.toISOString(), to: to.toISOString() }, courses };
  }
}
