/**
 * Planning units (terms) around a date: the term containing it plus the previous and the next one.
 * Summer terms run 1 March to 30 September with classes until mid-July, winter terms 1 October to 31 March
 * with classes all through, so both see a DST change mid-term; March belongs to both, the summer term wins.
 * Holidays: two weeks at Christmas, the Pentecost week and single public holidays.
 */
import type { DayNumber, PlanningUnit } from '../model/types.js';
import { dayOf, easterSunday, formatDay, mondayOf, yearOf } from './day-number.js';

interface Term {
  year: number;
  winter: boolean;
}

export function planningUnitsAround(today: DayNumber): PlanningUnit[] {
  const current = termContaining(today);
  const terms = [nextTerm(current), current, previousTerm(current)];
  return terms.map(toPlanningUnit);
}

function termContaining(day: DayNumber): Term {
  const year = yearOf(day);
  const month = new Date(day * 86_400_000).getUTCMonth() + 1;
  if (month >= 10) return { year, winter: true };
  if (month <= 2) return { year: year - 1, winter: true };
  return { year, winter: false };
}

function nextTerm(term: Term): Term {
  return term.winter ? { year: term.year + 1, winter: false } : { year: term.year, winter: true };
}

function previousTerm(term: Term): Term {
  return term.winter ? { year: term.year, winter: false } : { year: term.year - 1, winter: true };
}

function toPlanningUnit(term: Term): PlanningUnit {
  // Stable ids per term, so a different `today` keeps the ids of the terms it shares.
  const id = (term.year - 2000) * 2 + (term.winter ? 1 : 0);
  return term.winter ? winterUnit(id, term.year) : summerUnit(id, term.year);
}

function summerUnit(id: number, year: number): PlanningUnit {
  const easter = easterSunday(year);
  const whitMonday = easter + 50;
  return {
    id,
    shortname: `${year} SoSe`,
    name: `Sommersemester ${year}`,
    startdate: formatDay(dayOf(year, 3, 1)),
    enddate: formatDay(dayOf(year, 9, 30)),
    lectureStart: dayOf(year, 3, 1),
    lectureEnd: dayOf(year, 7, 15),
    holidays: [
      { from: mondayOf(whitMonday), to: mondayOf(whitMonday) + 6 },
      ...singleDays([easter - 2, easter + 1, dayOf(year, 5, 1), easter + 39, easter + 60]),
    ],
  };
}

function winterUnit(id: number, year: number): PlanningUnit {
  const christmasMonday = mondayOf(dayOf(year, 12, 24));
  return {
    id,
    shortname: `${year} WS`,
    name: `Wintersemester ${year}/${String((year + 1) % 100).padStart(2, '0')}`,
    startdate: formatDay(dayOf(year, 10, 1)),
    enddate: formatDay(dayOf(year + 1, 3, 31)),
    lectureStart: dayOf(year, 10, 1),
    lectureEnd: dayOf(year + 1, 3, 31),
    holidays: [
      { from: christmasMonday, to: christmasMonday + 13 },
      ...singleDays([
        dayOf(year, 10, 3),
        dayOf(year, 11, 1),
        dayOf(year + 1, 1, 1),
        dayOf(year + 1, 1, 6),
        easterSunday(year + 1) - 2,
      ]),
    ],
  };
}

/** Public holidays on which no classes take place. */
function singleDays(days: DayNumber[]) {
  return days.map((day) => ({ from: day, to: day }));
}
