/** Lecturers with academic titles and German names; each belongs to one or two programs. */
import type { Lecturer, Program } from '../model/types.js';
import type { Random } from './random.js';
import { FIRST_NAMES, SURNAMES, TITLES } from './vocabulary.js';

export function generateLecturers(random: Random, programs: Program[], count: number): Lecturer[] {
  const lecturers: Lecturer[] = [];
  const taken = new Set<string>();
  for (let index = 0; index < count; index += 1) {
    const firstname = random.pick(FIRST_NAMES);
    const name = uniqueSurname(random, firstname, taken);
    const home = programs[index % programs.length];
    if (!home) throw new Error('no programs');
    const ogIds = [home.id];
    const second = random.pick(programs);
    if (random.chance(0.2) && second.id !== home.id) ogIds.push(second.id);
    lecturers.push({ id: 500 + index, title: random.pick(TITLES), firstname, name, email: emailOf(firstname, name), ogIds });
  }
  return lecturers;
}

/** Display names must be unique: the iCal names lecturers only by "title firstname name". */
function uniqueSurname(random: Random, firstname: string, taken: Set<string>): string {
  let name: string = random.pick(SURNAMES);
  while (taken.has(`${firstname} ${name}`)) name = `${random.pick(SURNAMES)}-${random.pick(SURNAMES)}`;
  taken.add(`${firstname} ${name}`);
  return name;
}

export function emailOf(firstname: string, name: string): string {
  return `${asciiOf(firstname)}.${asciiOf(name)}@hs-rosenau.example`;
}

function asciiOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .replace(/é/g, 'e')
    .replace(/[^a-z-]/g, '');
}

export function displayNameOf(lecturer: Lecturer): string {
  return `${lecturer.title} ${lecturer.firstname} ${lecturer.name}`.trim();
}
