/** Reads the StarPlan resources sync needs (tools/starplan-sim serves the same), validated at the boundary into typed records. */
import { MAX_FEED_EVENTS } from '../validate/bounds.js';
import { checkFeed } from '../validate/check-feed.js';
import { checkList, type ListMethod, type ListRecord } from '../validate/check-list.js';
import type { FeedOccurrence } from '../validate/feed-occurrence.js';
import { RefusalReport } from '../validate/refusal-report.js';
import { calendarBodyHash, jsonBodyHash } from './body-hash.js';
import { decodeText, unwrapStarplanJson } from './decode-body.js';
import { DEFAULT_FETCH_POLICY, fetchWithRetry, type EarlierAnswer, type FetchedBody, type FetchPolicy, type Validators } from './fetch-with-retry.js';
import { syncListsDecoded } from './metrics.js';
import { parseGroupCalendar } from './parse-ical.js';
import type { AnswerAhead, ReadAhead } from './read-ahead.js';
import { UpstreamError } from './upstream-error.js';
import type { UpstreamLecturer, UpstreamLocation, UpstreamPlanningGroup, UpstreamPlanningUnit, UpstreamProgram, UpstreamRoom } from './upstream-types.js';

export interface StarplanClientSettings {
  /** e.g. `https://splan.example.edu/splan`; `json` and `ical` hang below it. */
  baseUrl: string;
  /** Zone for feed times without TZID. */
  timeZone: string;
  policy?: Partial<FetchPolicy>;
  /** Told of every record refused at the boundary; by default refusals are only counted. */
  refusals?: RefusalReport;
}

/** The records of a list that passed, and the ids of those refused (null where no id could be read). */
export interface CheckedList<T> {
  records: readonly T[];
  refusedIds: readonly (number | null)[];
}

/** A planning group's feed, and the program it is read under (named where its refused records are logged). */
export interface FeedOfGroup {
  og: number;
  pgid: number;
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

type Lists = Map<string, { bodyHash: string; checked: CheckedList<unknown> }>;

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
  private readonly refusals: RefusalReport;

  constructor(private readonly settings: StarplanClientSettings) {
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_FETCH_POLICY, ...settings.policy };
    this.refusals = settings.refusals ?? new RefusalReport();
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

  /** With the ids of units refused: one of them may be the current one (selectPlanningUnit). */
  planningUnits(seen?: SeenBodies): Promise<CheckedList<UpstreamPlanningUnit>> {
    return this.list('getpus', {}, seen);
  }

  async locations(seen?: SeenBodies): Promise<readonly UpstreamLocation[]> {
    return (await this.list('getlocs', {}, seen)).records;
  }

  /** With the ids of programs refused: each is a failure of its program (readLists). */
  programs(pu: number, seen?: SeenBodies): Promise<CheckedList<UpstreamProgram>> {
    return this.list('getogs', { pu: String(pu) }, seen);
  }

  async planningGroups(pu: number, og: number, seen?: SeenBodies): Promise<readonly UpstreamPlanningGroup[]> {
    return (await this.list('getPgsExt', { pu: String(pu), og: String(og) }, seen)).records;
  }

  async rooms(location: number, seen?: SeenBodies): Promise<readonly UpstreamRoom[]> {
    return (await this.list('getros', { loc: String(location) }, seen)).records;
  }

  async lecturers(og: number, seen?: SeenBodies): Promise<readonly UpstreamLecturer[]> {
    return (await this.list('getles', { og: String(og) }, seen)).records;
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
  groupCalendarUnlessKnown(pu: number, { og, pgid }: FeedOfGroup, known: KnownFeed | undefined, seen?: SeenBodies): Promise<CalendarRead> {
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
      const checked = checkFeed(parseGroupCalendar(text, MAX_FEED_EVENTS), this.settings.timeZone);
      this.refusals.report(checked.refused, { request, og, pgid });
      if (checked.unusable !== undefined) throw new UpstreamError(`calendar of group ${pgid}: ${checked.unusable}`, false);
      const occurrences: FeedOccurrence[] = checked.records;
      seen?.set(request, bodyHash);
      return { bodyHash, occurrences, validators };
    }, { conditional: known?.validators, earlier: earlierOf(ahead) });
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
    }, { conditional: known.validators });
  }

  private list<M extends ListMethod>(method: M, params: Record<string, string>, seen: SeenBodies | undefined): Promise<CheckedList<ListRecord<M>>> {
    const request = `json?${new URLSearchParams({ m: method, ...params }).toString()}`;
    const ahead = this.ahead?.take(request);
    if (ahead?.kind === 'failed') return Promise.reject(ahead.error);
    const last = this.lastLists.get(request);
    if (ahead?.kind === 'known' && last?.bodyHash === ahead.bodyHash) {
      seen?.set(request, ahead.bodyHash);
      return Promise.resolve(last.checked as CheckedList<ListRecord<M>>);
    }
    return fetchWithRetry(`${this.baseUrl}/${request}`, this.policy, ({ bytes, contentType }) => {
      const bodyHash = jsonBodyHash(bytes, contentType);
      const last = this.lastLists.get(request);
      const checked = last?.bodyHash === bodyHash ? (last.checked as CheckedList<ListRecord<M>>) : this.decodeList(method, { request, params }, { bodyHash, bytes, contentType });
      seen?.set(request, bodyHash);
      return checked;
    }, { earlier: earlierOf(ahead) });
  }

  /** Decodes and checks a list's answer, reports what was refused, and keeps what passed for this body hash. */
  private decodeList<M extends ListMethod>(
    method: M,
    { request, params }: { request: string; params: Record<string, string> },
    { bodyHash, bytes, contentType }: { bodyHash: string; bytes: Uint8Array; contentType: string | null },
  ): CheckedList<ListRecord<M>> {
    syncListsDecoded.inc();
    const checked = checkList(method, unwrapStarplanJson(decodeText(bytes, contentType)));
    this.refusals.report(checked.refused, { request, ...(params.og === undefined ? {} : { og: Number(params.og) }) });
    if (checked.unusable !== undefined) throw new UpstreamError(checked.unusable, false);
    const own = checked.refused.filter((refusal) => refusal.pgid === undefined);
    const list = deepFreeze({ records: checked.records, refusedIds: own.map((refusal) => refusal.id) });
    this.lastLists.set(request, { bodyHash, checked: list });
    return list;
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
