import { describe, expect, it } from 'vitest';
import { MAX_LIST_RECORDS } from '../src/features/validate/bounds.js';
import { checkList } from '../src/features/validate/check-list.js';

const room = (id: number, seats: unknown = 20) => ({ id, shortname: `A${id}`, name: 'Seminarraum', seats, bshortname: 'A' });
const lecture = (id: number, name = `Vorlesung ${id}`) => ({ id, shortname: `L${id}`, name, pgid: 1001 });
const group = (id: number, lectures: unknown[]) => ({ id, shortname: `G${id}`, name: 'Gruppe', lectures });
const unit = (id: number, startdate: string, enddate: string) => ({ id, shortname: `${id}`, name: 'Semester', startdate, enddate });

describe('a leaf record that fails is left out, the rest of its list passes', () => {
  it('a room of 3,000,000,000 seats (no integer column holds it), and one of -1', () => {
    const checked = checkList('getros', [room(1), room(2, 3_000_000_000), room(3), room(4, -1), room(5)]);
    expect(checked.records.map((record) => record.id)).toEqual([1, 3, 5]);
    expect(checked.refused).toEqual([
      expect.objectContaining({ kind: 'room', reason: 'number_out_of_range', id: 2, detail: expect.stringMatching(/^seats/) }),
      expect.objectContaining({ kind: 'room', reason: 'number_out_of_range', id: 4 }),
    ]);
    expect(checked.unusable).toBeUndefined();
  });

  it('a lecturer named with megabytes, an id past the integer column, a name of the wrong type', () => {
    const lecturers = [{ id: 1, name: 'Müller' }, { id: 2, name: 'x'.repeat(2 ** 21) }, { id: 2 ** 31, name: 'B' }, { id: 4, name: 4 }, { id: 5, name: 'C' }, { id: 6, name: 'D' }];
    const checked = checkList('getles', lecturers);
    expect(checked.records.map((record) => record.id)).toEqual([1, 5, 6]);
    expect(checked.refused.map(({ reason, id }) => [reason, id])).toEqual([['string_too_long', 2], ['number_out_of_range', null], ['malformed', 4]]);
  });

  it('a lecture is left out of its group, named with the group', () => {
    const checked = checkList('getPgsExt', [group(1001, [lecture(1), lecture(2, 'x'.repeat(5000)), lecture(3)])]);
    expect(checked.records[0]?.lectures.map((record) => record.id)).toEqual([1, 3]);
    expect(checked.refused).toEqual([expect.objectContaining({ kind: 'lecture', id: 2, pgid: 1001, reason: 'string_too_long' })]);
    expect(checked.unusable).toBeUndefined();
  });

  it('a planning unit on 30 February or ending before it starts', () => {
    const checked = checkList('getpus', [unit(37, '2024-03-15', '2024-09-30'), unit(34, '2023-02-30', '2024-03-14'), unit(33, '2023-09-30', '2023-03-15'), unit(32, '2022-10-01', '2023-03-14')]);
    expect(checked.records.map((record) => record.id)).toEqual([37, 32]);
    expect(checked.refused.map(({ reason, id }) => [reason, id])).toEqual([['impossible_date', 34], ['end_not_after_start', 33]]);
  });
});

describe('a refused record that others hang on', () => {
  it('a planning group makes the answer unusable: the program keeps its lists', () => {
    const checked = checkList('getPgsExt', [group(1001, [lecture(1)]), { ...group(1002, []), name: 'x'.repeat(2 ** 21) }]);
    expect(checked.unusable).toMatch(/^getPgsExt: planning group 1002 refused \(string_too_long/);
  });

  it('a group that loses most of its lectures is refused with them', () => {
    const checked = checkList('getPgsExt', [group(1001, [lecture(1), lecture(2, 'x'.repeat(5000)), lecture(3, 'y'.repeat(5000))])]);
    expect(checked.refused.map(({ kind, id }) => [kind, id])).toEqual([['lecture', 2], ['lecture', 3], ['planning_group', 1001]]);
    expect(checked.unusable).toMatch(/planning group 1001 refused/);
  });

  it('a location makes the answer unusable (its rooms would vanish)', () => {
    expect(checkList('getlocs', [{ id: 1, shortname: 'A', name: 'Campus' }, { id: 2, shortname: 'B', name: 'x'.repeat(2000) }]).unusable).toMatch(/location 2 refused/);
  });

  it('a program with an id is left out (its scope fails, read-upstream.ts); one without is unusable', () => {
    const programs = [{ id: 35, shortname: 'INF', name: 'Informatik' }, { id: 36, shortname: 'x'.repeat(2000), name: 'WIF' }, { id: 37, shortname: 'MB', name: 'Maschinenbau' }];
    expect(checkList('getogs', programs)).toMatchObject({ records: [{ id: 35 }, { id: 37 }], refused: [{ id: 36 }] });
    expect(checkList('getogs', [...programs, { id: 'x', shortname: 'Y', name: 'Y' }]).unusable).toMatch(/program \(no readable id\) refused/);
  });
});

describe('the safety valve\'s rule for a list', () => {
  it('a list that loses most of its records is unusable, one that loses half is not', () => {
    expect(checkList('getros', [room(1), room(2, 3e9), room(3, 3e9)]).unusable).toBe('getros: 2 of 3 records refused');
    expect(checkList('getros', [room(1), room(2, 3e9)]).unusable).toBeUndefined();
  });

  it('a list of more than MAX_LIST_RECORDS records is unusable without checking them', () => {
    const checked = checkList('getles', Array.from({ length: MAX_LIST_RECORDS + 1 }, (_, id) => ({ id, name: 'N' })));
    expect(checked).toMatchObject({ records: [], unusable: 'getles answered 100001 records, at most 100000 are read' });
    expect(checked.refused).toEqual([expect.objectContaining({ kind: 'lecturer', reason: 'too_many_records' })]);
  });
});
