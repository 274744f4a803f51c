/** Record faults in a group feed's VEVENTs (record-faults.ts), as raw lines the renderer writes as they are. */
import { basicLocal, type CalendarEntry } from '../encode/group-calendar.js';
import { DEFAULT_HUGE_LIST, hugeString, type RecordFault } from './record-faults.js';

/** What a garbled VEVENT writes instead of its own values (`YYYYMMDDTHHMMSS` times). */
export interface RawEventLines {
  dtstart?: string;
  dtend?: string;
  tzid?: string;
  description?: string;
}

/** The entries with the faults in: a garbled entry is a copy that carries its raw lines. */
export function garbleEntries(entries: readonly CalendarEntry[], faults: readonly RecordFault[]): CalendarEntry[] {
  let garbled = [...entries];
  for (const fault of faults) {
    const index = fault.recordId === undefined ? 0 : garbled.findIndex((entry) => entry.occurrence.occurrenceId === fault.recordId);
    const entry = garbled[index];
    if (entry === undefined) continue;
    if (fault.fault === 'huge_list') {
      garbled = [...garbled, ...Array.from({ length: (fault.count ?? DEFAULT_HUGE_LIST) - 1 }, () => entry)];
      continue;
    }
    const raw = rawLinesOf(entry, fault);
    if (raw !== undefined) garbled[index] = { ...entry, raw: { ...entry.raw, ...raw } };
  }
  return garbled;
}

function rawLinesOf({ occurrence }: CalendarEntry, { fault }: RecordFault): RawEventLines | undefined {
  const start = basicLocal(occurrence.start);
  const end = basicLocal(occurrence.end);
  switch (fault) {
    case 'impossible_date':
      return { dtstart: `${start.slice(0, 4)}0230${start.slice(8)}`, dtend: `${end.slice(0, 4)}0230${end.slice(8)}` };
    case 'impossible_time':
      return { dtstart: `${start.slice(0, 9)}240000` };
    case 'windows_zone':
      return { tzid: 'W. Europe Standard Time' };
    case 'unknown_zone':
      return { tzid: 'Mars/Olympus_Mons' };
    case 'end_before_start':
      return { dtstart: end, dtend: start };
    case 'huge_number':
      return { dtend: `${Number(end.slice(0, 4)) + 5}${end.slice(4)}` };
    case 'huge_string':
      return { description: hugeString() };
    default:
      return undefined;
  }
}
