/** Reads the StarPlan resources sync needs (tools/starplan-sim serves the same), validated into typed lists. */
import type { z } from 'zod';
import { unwrapStarplanJson } from './decode-body.js';
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

export class StarplanClient {
  private readonly baseUrl: string;
  private readonly policy: FetchPolicy;

  constructor(private readonly settings: StarplanClientSettings) {
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_FETCH_POLICY, ...settings.policy };
  }

  planningUnits(): Promise<UpstreamPlanningUnit[]> {
    return this.list({ m: 'getpus' }, upstreamPlanningUnit);
  }

  locations(): Promise<UpstreamLocation[]> {
    return this.list({ m: 'getlocs' }, upstreamLocation);
  }

  programs(pu: number): Promise<UpstreamProgram[]> {
    return this.list({ m: 'getogs', pu: String(pu) }, upstreamProgram);
  }

  planningGroups(pu: number, og: number): Promise<UpstreamPlanningGroup[]> {
    return this.list({ m: 'getPgsExt', pu: String(pu), og: String(og) }, upstreamPlanningGroup);
  }

  rooms(location: number): Promise<UpstreamRoom[]> {
    return this.list({ m: 'getros', loc: String(location) }, upstreamRoom);
  }

  lecturers(og: number): Promise<UpstreamLecturer[]> {
    return this.list({ m: 'getles', og: String(og) }, upstreamLecturer);
  }

  /** The feed of one planning group; an answer that is JSON (an error body) is an UpstreamError. */
  groupCalendar(pu: number, pgid: number): Promise<FeedOccurrence[]> {
    return fetchWithRetry(groupCalendarUrl(this.baseUrl, pu, pgid), this.policy, ({ text, contentType }) => {
      if (/json/i.test(contentType ?? '') || text.trimStart().startsWith('[')) {
        unwrapStarplanJson(text);
        throw new UpstreamError(`upstream answered the calendar of group ${pgid} with JSON`, false);
      }
      return parseGroupCalendar(text, this.settings.timeZone);
    });
  }

  private list<T>(query: Record<string, string>, schema: z.ZodType<T>): Promise<T[]> {
    const url = `${this.baseUrl}/json?${new URLSearchParams(query).toString()}`;
    return fetchWithRetry(url, this.policy, ({ text }) => {
      const items = unwrapStarplanJson(text);
      return items.map((item, index) => {
        const parsed = schema.safeParse(item);
        if (!parsed.success) throw new UpstreamError(`${query.m} item ${index} has an unexpected shape: ${parsed.error.message}`, false);
        return parsed.data;
      });
    });
  }
}

/** The public address of a group's feed, also what `/ical/:semesterId/url` answers. */
export function groupCalendarUrl(baseUrl: string, pu: number, pgid: number): string {
  return `${baseUrl.replace(/\/+$/, '')}/ical?lan=de&puid=${pu}&type=pg&pgid=${pgid}`;
}
