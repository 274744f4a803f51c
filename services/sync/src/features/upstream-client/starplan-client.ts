/** Reads the StarPlan resources sync needs (tools/starplan-sim serves the same), validated into typed lists. */
import type { z } from 'zod';
import { calendarBodyHash, jsonBodyHash } from './body-hash.js';
import { decodeText, unwrapStarplanJson } from './decode-body.js';
import { DEFAULT_FETCH_POLICY, fetchWithRetry, type FetchPolicy } from './fetch-with-retry.js';
import { parseGroupCalendar, type FeedOccurrence } from './parse-ical.js';
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
  /** Null when the body hashed as the `knownHash` asked about: then it was neither decoded nor parsed. */
  occurrences: FeedOccurrence[] | null;
}

export class StarplanClient {
  private readonly baseUrl: string;
  private readonly policy: FetchPolicy;

  constructor(private readonly settings: StarplanClientSettings) {
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_FETCH_POLICY, ...settings.policy };
  }

  planningUnits(seen?: SeenBodies): Promise<UpstreamPlanningUnit[]> {
    return this.list({ m: 'getpus' }, upstreamPlanningUnit, seen);
  }

  locations(seen?: SeenBodies): Promise<UpstreamLocation[]> {
    return this.list({ m: 'getlocs' }, upstreamLocation, seen);
  }

  programs(pu: number, seen?: SeenBodies): Promise<UpstreamProgram[]> {
    return this.list({ m: 'getogs', pu: String(pu) }, upstreamProgram, seen);
  }

  planningGroups(pu: number, og: number, seen?: SeenBodies): Promise<UpstreamPlanningGroup[]> {
    return this.list({ m: 'getPgsExt', pu: String(pu), og: String(og) }, upstreamPlanningGroup, seen);
  }

  rooms(location: number, seen?: SeenBodies): Promise<UpstreamRoom[]> {
    return this.list({ m: 'getros', loc: String(location) }, upstreamRoom, seen);
  }

  lecturers(og: number, seen?: SeenBodies): Promise<UpstreamLecturer[]> {
    return this.list({ m: 'getles', og: String(og) }, upstreamLecturer, seen);
  }

  /**
   * The feed of one planning group (an answer that is JSON, an error body, is an UpstreamError), parsed only if its body hash differs from `knownHash` (the hash of a
   * body an earlier run read and committed): an unchanged feed costs the request and one hash, nothing more.
   */
  groupCalendarUnlessKnown(pu: number, pgid: number, knownHash: string | undefined, seen?: SeenBodies): Promise<CalendarRead> {
    const request = groupCalendarRequest(pu, pgid);
    return fetchWithRetry(`${this.baseUrl}/${request}`, this.policy, ({ bytes, contentType }) => {
      const bodyHash = calendarBodyHash(bytes, contentType, this.settings.timeZone);
      if (bodyHash === knownHash) {
        seen?.set(request, bodyHash);
        return { bodyHash, occurrences: null };
      }
      const text = decodeText(bytes, contentType);
      if (/json/i.test(contentType ?? '') || text.trimStart().startsWith('[')) {
        unwrapStarplanJson(text);
        throw new UpstreamError(`upstream answered the calendar of group ${pgid} with JSON`, false);
      }
      const occurrences = parseGroupCalendar(text, this.settings.timeZone);
      seen?.set(request, bodyHash);
      return { bodyHash, occurrences };
    });
  }

  private list<T>(query: Record<string, string>, schema: z.ZodType<T>, seen: SeenBodies | undefined): Promise<T[]> {
    const request = `json?${new URLSearchParams(query).toString()}`;
    return fetchWithRetry(`${this.baseUrl}/${request}`, this.policy, ({ bytes, contentType }) => {
      const items = unwrapStarplanJson(decodeText(bytes, contentType)).map((item, index) => {
        const parsed = schema.safeParse(item);
        if (!parsed.success) throw new UpstreamError(`${query.m} item ${index} has an unexpected shape: ${parsed.error.message}`, false);
        return parsed.data;
      });
      seen?.set(request, jsonBodyHash(bytes, contentType));
      return items;
    });
  }
}

/** The public address of a group's feed, also what `/ical/:semesterId/url` answers. */
export function groupCalendarUrl(baseUrl: string, pu: number, pgid: number): string {
  return `${baseUrl.replace(/\/+$/, '')}/${groupCalendarRequest(pu, pgid)}`;
}

function groupCalendarRequest(pu: number, pgid: number): string {
  return `ical?lan=de&puid=${pu}&type=pg&pgid=${pgid}`;
}
