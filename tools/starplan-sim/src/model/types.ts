/** The generated university, shaped after what StarPlan serves (ids are integers, names are German). */

/** A date as days since 1970-01-01; calendar arithmetic on integers keeps generation fast. */
export type DayNumber = number;

export interface PlanningUnit {
  id: number;
  shortname: string;
  name: string;
  startdate: string;
  enddate: string;
  /** Classes run in [lectureStart, lectureEnd], except in holiday weeks. */
  lectureStart: DayNumber;
  lectureEnd: DayNumber;
  /** Inclusive day ranges without classes (Christmas break, Pentecost week). */
  holidays: Array<{ from: DayNumber; to: DayNumber }>;
}

export interface Location {
  id: number;
  shortname: string;
  name: string;
}

export interface Room {
  id: number;
  shortname: string;
  name: string;
  seats: number;
  bshortname: string;
  locationId: number;
}

export interface Lecturer {
  id: number;
  title: string;
  firstname: string;
  name: string;
  email: string;
  /** Programs (organisational groups) whose `getles` lists this lecturer. */
  ogIds: number[];
}

export interface Program {
  id: number;
  shortname: string;
  name: string;
  /** The campus most of its rooms are on. */
  locationId: number;
}

export interface PlanningGroup {
  id: number;
  ogId: number;
  shortname: string;
  name: string;
  /** Lectures listed in this group: its own and shared ones whose home is another group. */
  lectureIds: number[];
}

export interface Lecture {
  id: number;
  shortname: string;
  name: string;
  /** The home planning group. */
  pgid: number;
}

export interface Occurrence {
  id: number;
  lectureId: number;
  puId: number;
  day: DayNumber;
  /** Local wall-clock times in Europe/Berlin, `HH:MM`. */
  start: string;
  end: string;
  roomIds: number[];
  lecturerIds: number[];
  cancelled: boolean;
  /** An extra DESCRIPTION line, e.g. `Verlegung`. */
  note?: string;
}

/** An occurrence as a consumer of the iCal feed should see it: what tests elsewhere compare against. */
export interface ExpectedOccurrence {
  occurrenceId: number;
  lectureId: number;
  /** SUMMARY: the lecture shortname. */
  summary: string;
  lectureName: string;
  /** Local Europe/Berlin wall-clock, `YYYY-MM-DDTHH:MM:SS`. */
  start: string;
  end: string;
  roomShortnames: string[];
  /** "title firstname name", trimmed. */
  lecturerNames: string[];
  groupShortname: string;
  note?: string;
}
