import type { ApiClient } from './api-client.js';

export interface KnownOccurrence {
  id: string;
  course: { id: string };
  room: { id: string };
  instructor: { id: string } | null;
}

/** Real ids from the mirrored catalog, for routes with path parameters. */
export interface KnownIds {
  programId: string;
  semesterId: string;
  occurrence: KnownOccurrence;
  instructorId: string;
  changeId: string;
}

/** A semester linked to an academic period with at least one occurrence that has an instructor. */
export async function findKnownIds(client: ApiClient): Promise<KnownIds> {
  const semesters = (await client.get('/semesters')).body.data as { id: string; programId: string; academicPeriodId: string | null }[];
  for (const semester of semesters.filter((entry) => entry.academicPeriodId !== null)) {
    const occurrences = (await client.get(`/semesters/${semester.id}/courses`)).body.data as KnownOccurrence[];
    const occurrence = occurrences.find((entry) => entry.instructor !== null);
    if (occurrence?.instructor) {
      const [change] = (await client.get('/changes?limit=1')).body.data as { id: string }[];
      return { programId: semester.programId, semesterId: semester.id, occurrence, instructorId: occurrence.instructor.id, changeId: change!.id };
    }
  }
  throw new Error('no semester with occurrences in the mirrored catalog');
}
