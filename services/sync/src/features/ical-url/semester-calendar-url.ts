/** `/ical/:semesterId/url`: the upstream feed address of a mirrored semester (planning group). */
import { NotFoundError } from '@timetable/http';
import type { SnapshotStore } from '../write/snapshot-store.js';
import { groupCalendarUrl } from '../read/starplan-client.js';

export interface SemesterCalendarUrl {
  url: string;
  splanProgramId: string;
  splanSemesterId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function semesterCalendarUrl(snapshots: SnapshotStore, baseUrl: string, semesterId: string): Promise<SemesterCalendarUrl> {
  // A malformed id is an unknown id; without an upstream there is nothing to point at.
  const semester = baseUrl !== '' && UUID.test(semesterId) ? await snapshots.find('semester', semesterId.toLowerCase()) : undefined;
  const program = semester && (await snapshots.find('program', String(semester.data.programId)));
  if (!semester || !program) throw new NotFoundError('semester', semesterId);
  const pgid = Number(semester.data.upstreamId);
  return {
    url: groupCalendarUrl(baseUrl, Number(semester.data.planningUnitId), pgid),
    splanProgramId: String(program.data.upstreamId),
    splanSemesterId: String(pgid),
  };
}
