import type { Validators } from './fetch-with-retry.js';
import type { SeenBodies } from './starplan-client.js';
import type {
  LocatedRoom,
  UpstreamLecturer,
  UpstreamPlanningGroup,
  UpstreamPlanningUnit,
  UpstreamProgram,
} from './upstream-types.js';

/**
 * What one run read from StarPlan, but the occurrences of the feeds it parsed (they are handed on as each feed
 * arrives, readFeeds); a failed program or group is absent from the maps. Its lists are read-only: the client
 * hands the same items to later runs while their answers do not change.
 */
export interface UpstreamSnapshot {
  planningUnit: UpstreamPlanningUnit;
  programs: readonly UpstreamProgram[];
  rooms: LocatedRoom[];
  /** og id -> its planning groups, for programs whose getPgsExt and getles succeeded. */
  groupsByProgram: Map<number, readonly UpstreamPlanningGroup[]>;
  lecturersByProgram: Map<number, readonly UpstreamLecturer[]>;
  /**
   * pgid -> body hash, for groups whose feed was fetched and hashed like the body the snapshot's events of
   * that group were built from, and therefore not parsed.
   */
  unchangedFeeds: Map<number, string>;
  /** pgid -> body hash of every feed read (parsed or not). */
  feedHashes: Map<number, string>;
  /** pgid -> the validators a feed's answer carried, for feeds whose upstream sends any. */
  feedValidators: Map<number, Validators>;
  /** Request -> body hash of every answer read, lists and feeds. */
  bodies: SeenBodies;
}
