/** The named churn operations as accepted over HTTP: `{op, args}`, validated before they touch the model. */
import { z } from 'zod';
import { addGroup } from '../churn/add-group.js';
import {
  addLecturer,
  addOccurrence,
  cancelOccurrence,
  moveRoom,
  removeGroup,
  removeOccurrence,
  renameLecture,
  renameRoom,
} from '../churn/operations.js';
import type { UniversityModel } from '../model/university-model.js';

const id = z.number().int().nonnegative();
const ids = z.array(id);

export const changeSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('moveRoom'), args: z.object({ occurrenceId: id, roomIds: ids }) }),
  z.object({ op: z.literal('cancelOccurrence'), args: z.object({ occurrenceId: id }) }),
  z.object({ op: z.literal('removeOccurrence'), args: z.object({ occurrenceId: id }) }),
  z.object({
    op: z.literal('addOccurrence'),
    args: z.object({
      lectureId: id,
      puId: id,
      date: z.string(),
      start: z.string(),
      end: z.string(),
      roomIds: ids.optional(),
      lecturerIds: ids.optional(),
      note: z.string().optional(),
    }),
  }),
  z.object({
    op: z.literal('renameLecture'),
    args: z.object({ lectureId: id, name: z.string().min(1).optional(), shortname: z.string().min(1).optional() }),
  }),
  z.object({
    op: z.literal('renameRoom'),
    args: z.object({ roomId: id, shortname: z.string().min(1).optional(), name: z.string().min(1).optional() }),
  }),
  z.object({
    op: z.literal('addLecturer'),
    args: z.object({
      ogIds: ids,
      title: z.string(),
      firstname: z.string().min(1),
      name: z.string().min(1),
      email: z.string().optional(),
    }),
  }),
  z.object({ op: z.literal('addGroup'), args: z.object({ ogId: id, seed: z.number().int() }) }),
  z.object({ op: z.literal('removeGroup'), args: z.object({ pgid: id }) }),
]);

export type Change = z.infer<typeof changeSchema>;

/** Applies one change; returns what it created or touched (undefined for removals). */
export function applyChange(model: UniversityModel, change: Change): unknown {
  switch (change.op) {
    case 'moveRoom':
      return moveRoom(model, change.args);
    case 'cancelOccurrence':
      return cancelOccurrence(model, change.args);
    case 'removeOccurrence':
      return removeOccurrence(model, change.args);
    case 'addOccurrence':
      return addOccurrence(model, change.args);
    case 'renameLecture':
      return renameLecture(model, change.args);
    case 'renameRoom':
      return renameRoom(model, change.args);
    case 'addLecturer':
      return addLecturer(model, change.args);
    case 'addGroup':
      return addGroup(model, change.args);
    case 'removeGroup':
      return removeGroup(model, change.args);
  }
}
