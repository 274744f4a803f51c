/** Reads the StarPlan resources sync needs (tools/starplan-sim serves the same), validated into typed lists. */
import type { z } from 'zod';
import { calendarBodyHash, jsonBodyHash } from './body-hash.js';
import { decodeText, unwrapStarplanJson } from './decode-body.js';
import { DEFAULT_FETCH_POLICY, fetchWithRetry, type EarlierAnswer, type FetchedBody, type FetchPolicy, type Validators } from './fetch-with-retry.js';
import { syncListsDecoded } from './metrics.js';
import { parseGroupCalendar, type FeedOccurrence } from './parse-ical.js';
import type { AnswerAhead, ReadAhead } from './read-ahead.js';
import { UpstreamError } from './upstream-error.js';
import {
  upstreamLecturer,
  upstreamLocation,
  upstreamPlanningGroup,
  upstreamPlanningUnit,
  upstreamProgram,
  upstreamRoom,
  type UpstreamLecturer,
  type UpstreamLocation,
  type UpstreamPlanningGroup,
  type UpstreamPlanningUnit,
  type UpstreamProgram,
  type UpstreamRoom,
} from './upstream-types.js';

export interface StarplanClientSettings {
  /** e.g. `https://splan.example.edu/splan`; `json` and `ical` hang below it. */
  baseUrl: string;
  /** Zone for feed times without TZID. */
  timeZone: string;
  policy?: Partial<FetchPolicy>;
}

/** Request (relative to the base URL, e.g. `json?m=getpus`) -> hash of the answer that was read. */
export type SeenBodies = Map<string, string>;

export interface CalendarRead {
  bodyHash: string;
  /** Null when the feed is the known one (a 304, or the same body hash): then it was neither decoded nor parsed. */
  occurrences: FeedOccurrence[] | null;
  /** For a conditional request next time; empty when the upstream sends none (StarPlan). */
  validators: Validators;
}

/** The feed a group's stored events were built from: its body hash and the validators its answer carried. */
export interface KnownFeed {
  bodyHash: string;
  validators?: Validators;
}

/**
 * An answer fetched and hashed only. `earlier` is the answer as received, for a read that needs it after all;
 * it is left out where that read would not: a list whose items this client keeps for that hash, a group feed
 * that is the known one (by its hash, or a 304).
 */
export interface HashedAnswer {
  bodyHash: string;
  validators: Validators;
  earlier?: EarlierAnswer;
}

type Lists = Map<string, { bodyHash: string; items: readonly unknown[] }>;

export class StarplanClient {
  private readonly baseUrl: string;
  private readonly policy: FetchPolicy;
  /**
   * Each list's items as last decoded, with the hash of the answer they came from: a list that answers the
   * same again is not decoded and validated again (most lists, in most runs). Frozen, since every later run
   * shares them. Only lists the last run read are kept (`keepListsRead`), so a program, location or planning
   * unit that is gone does not stay in memory.
   */
  private lastLists: Lists = new Map();
  /** What this run already received (withReadAhead); taken instead of asking again. */
  private ahead: ReadAhead | undefined;

  constructor(private readonly settings: StarplanClientSettings) {
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_FETCH_POLICY, ...settings.policy };
  }

  /**
   * This client for the rest of one run: a request whose answer `ahead` holds takes it rather than asking
   * again. It shares this client's kept lists.
   */
  withReadAhead(ahead: ReadAhead): StarplanClient {
    const reading = new StarplanClient(this.settings);
    reading.lastLists = this.lastLists;
    reading.ahead = ahead;
    return reading;
  }

  planningUnits(seen?: SeenBodies): Promise<readonly UpstreamPlanningUnit[]> {
    return this.list({ m: 'getpus' }, upstreamPlanningUnit, seen);
  }

  locations(seen?: SeenBodies): Promise<readonly UpstreamLocation[]> {
    return this.list({ m: 'getlocs' }, upstreamLocation, seen);
  }

  programs(pu: number, seen?: SeenBodies): Promise<readonly UpstreamProgram[]> {
    return this.list({ m: 'getogs', pu: String(pu) }, upstreamProgram, seen);
  }

  planningGroups(pu: number, og: number, seen?: SeenBodies): Promise<readonly UpstreamPlanningGroup[]> {
    return this.list({ m: 'getPgsExt', pu: String(pu), og: String(og) }, upstreamPlanningGroup, seen);
  }

  rooms(location: number, seen?: SeenBodies): Promise<readonly UpstreamRoom[]> {
    return this.list({ m: 'getros', loc: String(location) }, upstreamRoom, seen);
  }

  lecturers(og: number, seen?: SeenBodies): Promise<readonly UpstreamLecturer[]> {
    return this.list({ m: 'getles', og: String(og) }, upstreamLecturer, seen);
  }

  /** Forgets the kept items of every list not among `read` (a run's requests), once a run has read its lists. */
  keepListsRead(read: ReadonlyMap<string, unknown>): void {
    for (const request of this.lastLists.keys()) if (!read.has(request)) this.lastLists.delete(request);
  }

  /**
   * The feed of one planning group (an answer that is JSON, an error body, is an UpstreamError), parsed only if
   * it is not the `known` one (the feed an earlier run read and committed). When that answer carried validators
   * the request is conditional, and a 304 costs nothing more; otherwise the body hash decides, and an unchanged
   * feed costs the request and one hash.
   */
  groupCalendarUnlessKnown(pu: number, pgid: number, known: KnownFeed | undefined, seen?: SeenBodies): Promise<CalendarRead> {
    const request = groupCalendarRequest(pu, pgid);
    // Only a read against the known feed takes what was read ahead, which was read against it too; a read
    // that wants the body whatever its hash (known undefined) asks.
    const ahead = known === undefined ? undefined : this.ahead?.take(request);
    if (ahead?.kind === 'known' && ahead.bodyHash === known?.bodyHash) {
      seen?.set(request, ahead.bodyHash);
      return Promise.resolve({ bodyHash: ahead.bodyHash, occurrences: null, validators: ahead.validators });
    }
    if (ahead?.kind === 'failed') return Promise.reject(ahead.error);
    return fetchWithRetry(`${this.baseUrl}/${request}`, this.policy, ({ bytes, contentType, validators, notModified }) => {
      if (notModified && known) {
        seen?.set(request, known.bodyHash);
        return { bodyHash: known.bodyHash, occurrences: null, validators };
      }
      const bodyHash = calendarBodyHash(bytes, contentType, this.settings.timeZone);
      if (bodyHash === known?.bodyHash) {
        seen?.set(request, bodyHash);
        return { bodyHash, occurrences: null, validators };
      }
      const text = decodeText(bytes, contentType);
      if (/json/i.test(contentType ?? '') || text.trimStart().startsWith('[')) {
        unwrapStarplanJson(text);
        throw new UpstreamError(`upstream answered the calendar of group ${pgid} with JSON`, false);
      }
      const occurrences = parseGroupCalendar(text, this.settings.timeZone);
      seen?.set(request, bodyHash);
      return { bodyHash, occurrences, validators };
    }, known?.validators, earlierOf(ahead));
  }

  /**
   * A list's answer (`request` as run reads record it, e.g. `json?m=getlocs`), hashed but neither decoded nor
   * validated.
   */
  listAnswer(request: string): Promise<HashedAnswer> {
    return fetchWithRetry(`${this.baseUrl}/${request}`, this.policy, (fetched, attempt) => {
      const bodyHash = jsonBodyHash(fetched.bytes, fetched.contentType);
      const kept = this.lastLists.get(request)?.bodyHash === bodyHash;
      return kept ? { bodyHash, validators: fetched.validators } : { bodyHash, validators: fetched.validators, earlier: { fetched, attempt } };
    });
  }

  /**
   * A group feed's answer, hashed as groupCalendarUnlessKnown hashes it (asked conditionally where `known`
   * has validators) but not decoded: `earlier` holds the answer only when it is not the known feed.
   */
  groupCalendarAnswer(pu: number, pgid: number, known: KnownFeed): Promise<HashedAnswer> {
    const request = groupCalendarRequest(pu, pgid);
    return fetchWithRetry(`${this.baseUrl}/${request}`, this.policy, (fetched: FetchedBody, attempt) => {
      if (fetched.notModified) return { bodyHash: known.bodyHash, validators: fetched.validators };
      const bodyHash = calendarBodyHash(fetched.bytes, fetched.contentType, this.settings.timeZone);
      return bodyHash === known.bodyHash ? { bodyHash, validators: fetched.validators } : { bodyHash, validators: fetched.validators, earlier: { fetched, attempt } };
    }, known.validators);
  }

  private list<T>(query: Record<string, string>, schema: z.ZodType<T>, seen: SeenBodies | undefined): Promise<readonly T[]> {
    const request = `json?${new URLSearchParams(query).toString()}`;
    const ahead = this.ahead?.take(request);
    if (ahead?.kind === 'failed') return Promise.reject(ahead.error);
    const last = this.lastLists.get(request);
    if (ahead?.kind === 'known' && last?.bodyHash === ahead.bodyHash) {
      seen?.set(request, ahead.bodyHash);
      return Promise.resolve(last.items as readonly T[]);
    }
    return fetchWithRetry(`${this.baseUrl}/${request}`, this.policy, ({ bytes, contentType }) => {
      const bodyHash = jsonBodyHash(bytes, contentType);
      const last = this.lastLists.get(request);
      const items = last?.bodyHash === bodyHash ? (last.items as readonly T[]) : this.decodeList(request, bodyHash, query, schema, bytes, contentType);
      seen?.set(request, bodyHash);
      return items;
    }, undefined, earlierOf(ahead));
  }

  private decodeList<T>(request: string, bodyHash: string, query: Record<string, string>, schema: z.ZodType<T>, bytes: Uint8Array, contentType: string | null): readonly T[] {
    syncListsDecoded.inc();
    const items = unwrapStarplanJson(decodeText(bytes, contentType)).map((item, index) => {
      const parsed = schema.safeParse(item);
      if (!parsed.success) throw new UpstreamError(`${query.m} item ${index} has an unexpected shape: ${parsed.error.message}`, false);
      return deepFreeze(parsed.data);
    });
    this.lastLists.set(request, { bodyHash, items: Object.freeze(items) });
    return items;
  }
}

/** The public address of a group's feed, also what `/ical/:semesterId/url` answers. */
export function groupCalendarUrl(baseUrl: string, pu: number, pgid: number): string {
  return `${baseUrl.replace(/\/+$/, '')}/${groupCalendarRequest(pu, pgid)}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function earlierOf(ahead: AnswerAhead | undefined): EarlierAnswer | undefined {
  return ahead?.kind === 'unchecked' ? ahead.earlier : undefined;
}

/** A group feed's request, relative to the base URL: how run reads record it. */
export function groupCalendarRequest(pu: number, pgid: number): string {
  return `ical?lan=de&puid=${pu}&type=pg&pgid=${pgid}`;
}
