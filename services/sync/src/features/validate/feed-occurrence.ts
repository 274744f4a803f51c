/** A planning group feed's VEVENT as the reader hands it over, and the occurrence it becomes once it passed. */

/** DTSTART or DTEND as written: the value and the TZID parameter, if any. */
export interface CalendarDateTime {
  value: string;
  tzid: string | undefined;
}

/** A VEVENT that is not cancelled, with its TEXT values unescaped; nothing in it is checked yet. */
export interface CalendarEvent {
  start: CalendarDateTime | undefined;
  end: CalendarDateTime | undefined;
  summary: string;
  location: string;
  description: string;
}

export interface FeedOccurrence {
  /** Local wall-clock 'YYYY-MM-DDTHH:mm:ss' in `timeZone`. */
  start: string;
  end: string;
  /** An IANA zone (a Windows zone name is mapped to one). */
  timeZone: string;
  /** SUMMARY: the lecture shortname. */
  summary: string;
  /** LOCATION split at commas: room shortnames. */
  roomShortnames: string[];
  location: string;
  /** DESCRIPTION line 1. */
  lectureName: string;
  /** DESCRIPTION line 2 split at ', '. */
  lecturerNames: string[];
  /** DESCRIPTION lines after the group line (e.g. `Verlegung`), or null. */
  note: string | null;
}
