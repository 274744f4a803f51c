/** The shapes of the StarPlan JSON lists sync reads; unknown fields are ignored. */
import { z } from 'zod';

export const upstreamPlanningUnit = z.object({
  id: z.number().int(),
  shortname: z.string(),
  name: z.string(),
  startdate: z.string(),
  enddate: z.string(),
});

export const upstreamLocation = z.object({ id: z.number().int(), shortname: z.string(), name: z.string() });

export const upstreamProgram = z.object({ id: z.number().int(), shortname: z.string(), name: z.string() });

export const upstreamLecture = z.object({
  id: z.number().int(),
  shortname: z.string(),
  name: z.string(),
  pgid: z.number().int(),
});

export const upstreamPlanningGroup = z.object({
  id: z.number().int(),
  shortname: z.string(),
  name: z.string(),
  lectures: z.array(upstreamLecture).default([]),
});

export const upstreamRoom = z.object({
  id: z.number().int(),
  shortname: z.string(),
  name: z.string(),
  seats: z.number().int().nullish(),
  bshortname: z.string().nullish(),
});

export const upstreamLecturer = z.object({
  id: z.number().int(),
  name: z.string(),
  firstname: z.string().nullish(),
  title: z.string().nullish(),
  email: z.string().nullish(),
});

export type UpstreamPlanningUnit = z.infer<typeof upstreamPlanningUnit>;
export type UpstreamLocation = z.infer<typeof upstreamLocation>;
export type UpstreamProgram = z.infer<typeof upstreamProgram>;
export type UpstreamLecture = z.infer<typeof upstreamLecture>;
export type UpstreamPlanningGroup = z.infer<typeof upstreamPlanningGroup>;
export type UpstreamRoom = z.infer<typeof upstreamRoom>;
/** A room with the location it was listed under. */
export type LocatedRoom = UpstreamRoom & { location: UpstreamLocation };
export type UpstreamLecturer = z.infer<typeof upstreamLecturer>;
