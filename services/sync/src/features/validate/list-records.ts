/**
 * The StarPlan JSON records sync reads, with the bounds they must keep (bounds.ts); unknown fields are
 * ignored. The values exported are the schemas, whose JSON Schemas are part of what READ_VERSION pins.
 */
import { z } from 'zod';
import { MAX_INTEGER, MAX_LECTURES_PER_GROUP, MAX_NAME_LENGTH } from './bounds.js';
import { dateRefusal } from './calendar-values.js';

const upstreamId = z.number().int().min(0).max(MAX_INTEGER);
const name = z.string().max(MAX_NAME_LENGTH);

/** A real `YYYY-MM-DD` in the years allowed; the refusal's reason says what is wrong with it. */
const calendarDate = z.string().check((context) => {
  const reason = dateRefusal(context.value);
  if (reason) context.issues.push({ code: 'custom', input: context.value, message: `not a date the mirror takes (${reason})`, params: { reason } });
});

export const upstreamPlanningUnit = z
  .object({ id: upstreamId, shortname: name, name, startdate: calendarDate, enddate: calendarDate })
  .refine((unit) => unit.startdate <= unit.enddate, { message: 'enddate before startdate', params: { reason: 'end_not_after_start' } });

export const upstreamLocation = z.object({ id: upstreamId, shortname: name, name });

export const upstreamProgram = z.object({ id: upstreamId, shortname: name, name });

export const upstreamLecture = z.object({ id: upstreamId, shortname: name, name, pgid: upstreamId });

/** A planning group with its lectures unchecked: each lecture is checked on its own (check-list.ts). */
export const upstreamPlanningGroup = z.object({
  id: upstreamId,
  shortname: name,
  name,
  lectures: z.array(z.unknown()).max(MAX_LECTURES_PER_GROUP).default([]),
});

export const upstreamRoom = z.object({
  id: upstreamId,
  shortname: name,
  name,
  seats: z.number().int().min(0).max(MAX_INTEGER).nullish(),
  bshortname: name.nullish(),
});

export const upstreamLecturer = z.object({
  id: upstreamId,
  name,
  firstname: name.nullish(),
  title: name.nullish(),
  email: name.nullish(),
});

export type UpstreamPlanningUnit = z.infer<typeof upstreamPlanningUnit>;
export type UpstreamLocation = z.infer<typeof upstreamLocation>;
export type UpstreamProgram = z.infer<typeof upstreamProgram>;
export type UpstreamLecture = z.infer<typeof upstreamLecture>;
/** A planning group with those of its lectures that passed. */
export type UpstreamPlanningGroup = Omit<z.infer<typeof upstreamPlanningGroup>, 'lectures'> & { lectures: UpstreamLecture[] };
export type UpstreamRoom = z.infer<typeof upstreamRoom>;
export type UpstreamLecturer = z.infer<typeof upstreamLecturer>;
