/** The StarPlan records sync reads, as they leave the boundary: validated (features/validate/list-records.ts). */
import type { UpstreamLocation, UpstreamRoom } from '../validate/list-records.js';

export type {
  UpstreamLecture,
  UpstreamLecturer,
  UpstreamLocation,
  UpstreamPlanningGroup,
  UpstreamPlanningUnit,
  UpstreamProgram,
  UpstreamRoom,
} from '../validate/list-records.js';

/** A room with the location it was listed under. */
export type LocatedRoom = UpstreamRoom & { location: UpstreamLocation };
