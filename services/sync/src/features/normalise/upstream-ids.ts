/** Service ids of upstream things: UUIDv5 of the upstream keys listed in docs/sync.md ("The run"). */
import { StringPool } from './string-pool.js';
import { uuidV5 } from './uuid-v5.js';

/** Ids computed once per upstream key and shared; about twice the distinct keys of a large university. */
const ids = new StringPool(250_000);
const sharedId = (name: string): string => ids.shareComputed(name, uuidV5);

export const programIdOf = (og: number): string => sharedId(`og:${og}`);
export const semesterIdOf = (pgid: number): string => sharedId(`pg:${pgid}`);
export const courseIdOf = (lectureId: number): string => sharedId(`lecture:${lectureId}`);
export const roomIdOf = (roomId: number): string => sharedId(`room:${roomId}`);
export const instructorIdOf = (lecturerId: number): string => sharedId(`lecturer:${lecturerId}`);
export const academicPeriodIdOf = (pu: number, pgid: number): string => sharedId(`period:${pu}:${pgid}`);
/** Each event's own (not shared); `seriesKey` names the grouping (course, slot, rooms, instructors) and the piece's first start. */
export const eventIdOf = (pgid: number, seriesKey: string): string => uuidV5(`event:${pgid}:${seriesKey}`);
