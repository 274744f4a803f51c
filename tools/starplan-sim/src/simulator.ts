/** The simulator: a generated university behind the StarPlan contract, plus churn and failure injection. */
import { randomBytes } from 'node:crypto';
import type { RequestListener } from 'node:http';
import express from 'express';
import { addGroup } from './churn/add-group.js';
import * as operations from './churn/operations.js';
import { randomChurn, type ChurnRecord } from './churn/random-churn.js';
import { berlinDayOf, formatDay, parseDay } from './generate/day-number.js';
import { generateUniversity } from './generate/generate-university.js';
import { applyChange, type Change } from './http/admin-changes.js';
import { createAdminRouter } from './http/admin-router.js';
import { createStarplanHandler } from './http/starplan-handler.js';
import { Misbehaviours, type Misbehaviour } from './misbehave.js';
import { expectedOccurrences } from './model/describe-occurrence.js';
import type { ExpectedOccurrence, Lecture, Lecturer, Occurrence, PlanningGroup, Room } from './model/types.js';
import type { UniversityModel } from './model/university-model.js';

export interface SimulatorOptions {
  seed?: number;
  /** Multiplies the counts of programs, lectures, rooms and lecturers (10: about 3,000 lectures). */
  scale?: number;
  /** The day the terms are placed around; defaults to today in Europe/Berlin. */
  today?: Date | string;
  basePath?: string;
  /**
   * Answer group feeds with a weak ETag of the model's version, and 304 to a request naming it. StarPlan
   * sends no validators; this stands in for an upstream that does, to measure what they save. The version
   * counts changes made through the simulator's methods and its admin routes; after changing `model` directly,
   * call `modelChanged()`.
   */
  validators?: boolean;
  /**
   * Told of an answer that could not be built (it is answered with a 500); by default its stack goes to
   * stderr, as the express app wrote it before.
   */
  onError?: (error: unknown) => void;
}

export interface ResolvedSimulatorOptions {
  seed: number;
  scale: number;
  /** `YYYY-MM-DD` */
  today: string;
  basePath: string;
  validators: boolean;
}

export interface Simulator {
  /** The server's request listener: StarPlan's resources, and the admin routes under `<base>/__admin`. */
  readonly handle: RequestListener;
  readonly options: ResolvedSimulatorOptions;
  /**
   * The current model; replaced by `reset()`. Answers are kept until the model changes, so whoever changes it
   * directly (rather than through the methods below) calls `modelChanged()` after.
   */
  readonly model: UniversityModel;
  readonly misbehaviours: Misbehaviours;
  /** What a consumer of the group's feed should see in that term (cancelled occurrences left out). */
  expectedOccurrences(puId: number, pgid: number): ExpectedOccurrence[];
  moveRoom(args: { occurrenceId: number; roomIds: number[] }): Occurrence;
  cancelOccurrence(args: { occurrenceId: number }): Occurrence;
  removeOccurrence(args: { occurrenceId: number }): void;
  addOccurrence(args: operations.AddOccurrenceArgs): Occurrence;
  renameLecture(args: { lectureId: number; name?: string; shortname?: string }): Lecture;
  renameRoom(args: { roomId: number; shortname?: string; name?: string }): Room;
  addLecturer(args: operations.AddLecturerArgs): Lecturer;
  addGroup(args: { ogId: number; seed: number }): PlanningGroup;
  removeGroup(args: { pgid: number }): void;
  /** One change as `POST __admin/change` takes it; returns what it created or touched. */
  apply(change: Change): unknown;
  /** A seeded random mix of `count` changes in the current term. */
  churn(seed: number, count?: number): ChurnRecord[];
  misbehave(kind: string, behaviour: Misbehaviour): void;
  clearMisbehaviour(kind?: string): void;
  /** Regenerates the university from the options and clears every misbehaviour. */
  reset(): void;
  /** Says that `model` was changed directly: kept answers are dropped and the feeds' validator moves. */
  modelChanged(): void;
}

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const resolved = resolveOptions(options);
  const generate = () =>
    generateUniversity({ seed: resolved.seed, scale: resolved.scale, today: parseDay(resolved.today) });
  let model = generate();
  const misbehaviours = new Misbehaviours();
  // Counts the changes to the model, after each is made (a feed read before a change and labelled with the
  // new version would be taken as current later), so a feed's validator and the kept answers change with
  // anything that may change them, a change that fails half-way included; with an id of this instance, so a
  // restarted simulator (its model generated anew) never repeats one.
  const instance = randomBytes(4).toString('hex');
  let version = 0;
  const changing = <T>(change: () => T): T => {
    try {
      return change();
    } finally {
      version += 1;
    }
  };

  const admin = express();
  const simulator: Simulator = {
    handle: (req, res) => {
      if (!starplan(req, res)) admin(req, res);
    },
    options: resolved,
    get model() {
      return model;
    },
    misbehaviours,
    expectedOccurrences: (puId, pgid) => expectedOccurrences(model, puId, pgid),
    moveRoom: (args) => changing(() => operations.moveRoom(model, args)),
    cancelOccurrence: (args) => changing(() => operations.cancelOccurrence(model, args)),
    removeOccurrence: (args) => changing(() => operations.removeOccurrence(model, args)),
    addOccurrence: (args) => changing(() => operations.addOccurrence(model, args)),
    renameLecture: (args) => changing(() => operations.renameLecture(model, args)),
    renameRoom: (args) => changing(() => operations.renameRoom(model, args)),
    addLecturer: (args) => changing(() => operations.addLecturer(model, args)),
    addGroup: (args) => changing(() => addGroup(model, args)),
    removeGroup: (args) => changing(() => operations.removeGroup(model, args)),
    apply: (change) => changing(() => applyChange(model, change)),
    churn: (seed, count) => changing(() => randomChurn(model, seed, count)),
    misbehave: (kind, behaviour) => misbehaviours.set(kind, behaviour),
    clearMisbehaviour: (kind) => misbehaviours.clear(kind),
    reset: () => {
      changing(() => (model = generate()));
      misbehaviours.clear();
    },
    modelChanged: () => changing(() => undefined),
  };

  const starplan = createStarplanHandler({
    basePath: resolved.basePath,
    model: () => model,
    misbehaviours,
    version: () => `${instance}-${version}`,
    validators: resolved.validators,
    onError: options.onError ?? writeToStderr,
  });
  admin.disable('x-powered-by');
  admin.set('etag', false);
  admin.use(`${resolved.basePath}/__admin`, createAdminRouter(simulator));
  return simulator;
}

function writeToStderr(error: unknown): void {
  process.stderr.write(`starplan-sim: an answer could not be built: ${error instanceof Error ? error.stack : String(error)}\n`);
}

function resolveOptions(options: SimulatorOptions): ResolvedSimulatorOptions {
  const scale = options.scale ?? 1;
  if (!(scale > 0)) throw new Error(`scale must be positive, got ${scale}`);
  const basePath = (options.basePath ?? '/splan').replace(/\/+$/, '');
  return { seed: options.seed ?? 1, scale, today: resolveToday(options.today), basePath, validators: options.validators ?? false };
}

/** A plain date is taken as is; an instant is placed on the Europe/Berlin calendar. */
function resolveToday(today: Date | string | undefined): string {
  if (typeof today === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(today)) return formatDay(parseDay(today));
  const instant = today === undefined ? new Date() : new Date(today);
  if (Number.isNaN(instant.getTime())) throw new Error(`not a date: ${String(today)}`);
  return formatDay(berlinDayOf(instant));
}
