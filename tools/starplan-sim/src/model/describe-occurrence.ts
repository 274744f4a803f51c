/** How an occurrence reads in a group's feed; the iCal writer and the test-facing expectations share it. */
import { displayNameOf } from '../generate/generate-lecturers.js';
import { formatDay } from '../generate/day-number.js';
import type { ExpectedOccurrence, Occurrence, PlanningGroup } from './types.js';
import type { UniversityModel } from './university-model.js';

export function describeOccurrence(
  model: UniversityModel,
  occurrence: Occurrence,
  group: PlanningGroup,
): ExpectedOccurrence {
  const lecture = model.lectures.get(occurrence.lectureId);
  const date = formatDay(occurrence.day);
  const described: ExpectedOccurrence = {
    occurrenceId: occurrence.id,
    lectureId: occurrence.lectureId,
    summary: lecture?.shortname ?? '',
    lectureName: lecture?.name ?? '',
    start: `${date}T${occurrence.start}:00`,
    end: `${date}T${occurrence.end}:00`,
    roomShortnames: occurrence.roomIds.flatMap((id) => model.rooms.get(id)?.shortname ?? []),
    lecturerNames: occurrence.lecturerIds.flatMap((id) => {
      const lecturer = model.lecturers.get(id);
      return lecturer ? [displayNameOf(lecturer)] : [];
    }),
    groupShortname: group.shortname,
  };
  if (occurrence.note !== undefined) described.note = occurrence.note;
  return described;
}

/** The occurrences a consumer of the group's feed should end up with: cancelled ones are absent. */
export function expectedOccurrences(model: UniversityModel, puId: number, pgid: number): ExpectedOccurrence[] {
  const group = model.groups.get(pgid);
  if (!group) return [];
  return model
    .occurrencesOfGroup(puId, pgid)
    .filter((occurrence) => !occurrence.cancelled)
    .map((occurrence) => describeOccurrence(model, occurrence, group));
}
