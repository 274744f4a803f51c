/** Record faults in a JSON list's items (record-faults.ts); a fault with no place in the record leaves it as it is. */
import { DEFAULT_HUGE_LIST, HUGE_NUMBER, hugeString, type RecordFault } from './record-faults.js';

type Item = Record<string, unknown>;

/** The items with the faults in: the faulty records are copies, the others the items as they were. */
export function garbleItems(items: readonly unknown[], faults: readonly RecordFault[]): unknown[] {
  let garbled = items.map((item) => structuredClone(item) as Item);
  for (const fault of faults) {
    const record = findRecord(garbled, fault.recordId);
    if (record === undefined) continue;
    if (fault.fault === 'huge_list') garbled = [...garbled, ...Array.from({ length: (fault.count ?? DEFAULT_HUGE_LIST) - 1 }, () => record)];
    else garbleRecord(record, fault);
  }
  return garbled;
}

/** The item with `recordId` (a lecture within a planning group too), or the first item. */
function findRecord(items: Item[], recordId: number | undefined): Item | undefined {
  if (recordId === undefined) return items[0];
  for (const item of items) {
    if (item.id === recordId) return item;
    const lectures = Array.isArray(item.lectures) ? (item.lectures as Item[]) : [];
    const lecture = lectures.find((candidate) => candidate.id === recordId);
    if (lecture) return lecture;
  }
  return undefined;
}

function garbleRecord(record: Item, { fault }: RecordFault): void {
  switch (fault) {
    case 'huge_number':
      if ('seats' in record) record.seats = HUGE_NUMBER;
      else record.id = HUGE_NUMBER;
      return;
    case 'huge_string':
      record.name = hugeString();
      return;
    case 'impossible_date':
      if (typeof record.startdate === 'string') record.startdate = `${record.startdate.slice(0, 4)}-02-30`;
      return;
    case 'end_before_start':
      if ('startdate' in record) [record.startdate, record.enddate] = [record.enddate, record.startdate];
      return;
    default:
      return;
  }
}
