import type { ChangeEvent, ChangeRecord } from '@timetable/contracts';

/** What GET /changes filters by, already validated; undefined means "no filter". */
export interface ChangeFilter {
  since?: Date;
  /** Case-insensitive contains. */
  entityType?: string;
  /** Case-insensitive contains. */
  action?: string;
  programId?: string;
  semesterId?: string;
  courseId?: string;
  limit: number;
}

export interface ChangeStore {
  /** Inserts the changes whose id is new; replays of known ids are ignored. */
  append(changes: ChangeEvent[]): Promise<void>;
  /** Newest first, ties broken by id descending. */
  list(filter: ChangeFilter): Promise<ChangeRecord[]>;
  find(id: string): Promise<ChangeRecord | undefined>;
}
