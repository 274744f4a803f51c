/** Resolving what a feed occurrence names (lecture, rooms, lecturers) to upstream entities. */
import type { UpstreamLecture } from '../read/upstream-types.js';
import type { FeedOccurrence } from '../validate/feed-occurrence.js';

/** An upstream reference: the id when it resolved, else the name as the feed wrote it. */
export interface Reference {
  upstreamId: number | null;
  name: string;
}

export class LectureLookup {
  private readonly byShortname = new Map<string, UpstreamLecture>();
  private readonly byName = new Map<string, UpstreamLecture>();

  constructor(lectures: readonly UpstreamLecture[]) {
    for (const lecture of lectures) {
      if (!this.byShortname.has(lecture.shortname)) this.byShortname.set(lecture.shortname, lecture);
      if (!this.byName.has(lecture.name)) this.byName.set(lecture.name, lecture);
    }
  }

  /** SUMMARY is the lecture shortname within the group; DESCRIPTION line 1 (the name) is the fallback. */
  resolve(occurrence: FeedOccurrence): UpstreamLecture | undefined {
    return this.byShortname.get(occurrence.summary) ?? this.byName.get(occurrence.lectureName);
  }
}

export interface NameResolver {
  resolve(names: readonly string[]): Reference[];
}

/** Name -> upstream id; the first entry wins for duplicate names (ids ascending keep this stable). */
export class NameLookup implements NameResolver {
  private readonly ids = new Map<string, number>();

  constructor(entries: Iterable<{ name: string; upstreamId: number }>) {
    const sorted = [...entries].sort((a, b) => a.upstreamId - b.upstreamId);
    for (const { name, upstreamId } of sorted) if (!this.ids.has(name)) this.ids.set(name, upstreamId);
  }

  resolve(names: readonly string[]): Reference[] {
    return names.map((name) => ({ upstreamId: this.ids.get(name) ?? null, name }));
  }
}

/** Part of a series key: ids where resolved so a renamed room or lecturer keeps its events' ids. */
export function referenceKey(references: readonly Reference[]): string {
  return references.map((reference) => (reference.upstreamId === null ? `"${reference.name}"` : String(reference.upstreamId))).join(',');
}
