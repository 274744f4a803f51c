/** Service ids of upstream things: UUIDv5 of the upstream keys listed in docs/architecture.md ("Sync"). */
import { uuidV5 } from './uuid-v5.js';

export const programIdOf = (og: number): string => uuidV5(`og:${og}`);
export const semesterIdOf = (pgid: number): string => uuidV5(`pg:${pgid}`);
export const courseIdOf = (lectureId: number): string => uuidV5(`lecture:${lectureId}`);
export const roomIdOf = (roomId: number): string => uuidV5(`room:${roomId}`);
export const instructorIdOf = (lecturerId: number): string => uuidV5(`lecturer:${lecturerId}`);
export const academicPeriodIdOf = (pu: number, pgid: number): string => uuidV5(`period:${pu}:${pgid}`);
/** `seriesKey` names the grouping (course, slot, rooms, instructors) and the piece's first start. */
export const eventIdOf = (pgid: number, seriesKey: string): string => uuidV5(`event:${pgid}:${seriesKey}`);
