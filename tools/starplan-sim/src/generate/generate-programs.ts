/** Study programs (organisational groups) and their planning groups (semesters), six per program. */
import type { Location, PlanningGroup, Program } from '../model/types.js';
import { DEGREES, PROGRAM_VARIANTS, SUBJECTS } from './vocabulary.js';

export const GROUPS_PER_PROGRAM = 6;

/** Subjects in pairs (bachelor, master), every sixth program something else (degreeType "other"). */
export function generatePrograms(locations: Location[], count: number): Program[] {
  const taken = new Set<string>();
  const programs: Program[] = [];
  for (let index = 0; programs.length < count; index += 1) {
    const subject = SUBJECTS[Math.floor(index / 2) % SUBJECTS.length];
    if (!subject) throw new Error('no subjects');
    const degree = index % 6 === 5 ? DEGREES[2] : index % 2 === 0 ? DEGREES[0] : DEGREES[1];
    const naming = freeVariant(`${subject.abbreviation}${degree.suffix}`, taken, index);
    const southern = naming.variant.shortname.includes('SÜD');
    programs.push({
      id: 20 + index,
      shortname: naming.shortname,
      name: `${degree.prefix}${subject.name}${naming.variant.name}`,
      locationId: (southern ? locations[1] : locations[0])?.id ?? 3,
    });
  }
  return programs;
}

function freeVariant(base: string, taken: Set<string>, index: number) {
  for (const variant of PROGRAM_VARIANTS) {
    const shortname = `${base}${variant.shortname}`;
    if (!taken.has(shortname)) {
      taken.add(shortname);
      return { shortname, variant };
    }
  }
  const shortname = `${base}/${index}`;
  taken.add(shortname);
  return { shortname, variant: { shortname: `/${index}`, name: ` (Jahrgang ${index})` } };
}

export function generateGroupsOf(program: Program, firstId: number): PlanningGroup[] {
  return Array.from({ length: GROUPS_PER_PROGRAM }, (_, index) => planningGroupOf(program, index + 1, firstId + index));
}

/** The group for one semester (or module) number of a program, named like `INF3`. */
export function planningGroupOf(program: Program, number: number, id: number): PlanningGroup {
  const isOther = program.name.startsWith(DEGREES[2].prefix);
  return {
    id,
    ogId: program.id,
    shortname: `${groupPrefixOf(program.shortname)}${number}`,
    name: isOther ? `${program.name} - Modul ${number}` : `${program.name} - ${number}. Semester`,
    lectureIds: [],
  };
}

/** `INF-B` -> `INF`, `INF-M` -> `INF-M`, `BW-B(b) SÜD` -> `BW(b)-SÜD`: a prefix the semester number can follow. */
export function groupPrefixOf(programShortname: string): string {
  return programShortname.replace('-B', '').replace(/ /g, '-');
}
