/**
 * The upstream contract: `json?m=...` and `ical?...`, errors as HTTP 200 bodies. A plain Node handler in
 * front of the express app rather than an express router: the simulator stands in for a server on another
 * machine, but shares the benchmark's cores with the client it serves, and express's routing cost several
 * times what sending a kept feed costs (`npm run bench:upstream` measures both). Every other request
 * (the admin routes, anything unknown) goes on to the express app.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { ICAL_CONTENT_TYPE, renderGroupCalendar } from '../encode/group-calendar.js';
import { encodeLatin1Json, errorPayload, JSON_CONTENT_TYPE, wrapItems } from '../encode/starplan-json.js';
import { garbleEntries } from '../garble/garble-feed.js';
import { garbleItems } from '../garble/garble-json.js';
import type { Misbehaviour, Misbehaviours } from '../misbehave.js';
import type { UniversityModel } from '../model/university-model.js';
import { answerIcalQuery, type IcalAnswer } from './ical-query.js';
import { answerJsonQuery, type QueryAnswer } from './json-queries.js';
import { exportableFeed, exportFeed, type ExportableFeed } from './feed-export.js';
import { KeptAnswers } from './kept-answers.js';
import { stringParam, type Query } from './query-params.js';
import { sendBody, sendServerError, type Body } from './send-body.js';

export interface StarplanHandlerDeps {
  /** Where `json` and `ical` hang, e.g. `/splan`. */
  basePath: string;
  model: () => UniversityModel;
  misbehaviours: Misbehaviours;
  now?: () => Date;
  /** The model's version: it moves with every change, so whatever was built from the model may be kept until it does. */
  version: () => string;
  /** Group feeds carry a weak ETag of the version and answer 304 to it (see SimulatorOptions.validators). */
  validators?: boolean;
  /** Told of an answer that could not be built, which is answered with a 500. */
  onError: (error: unknown) => void;
}

/** Answers the request and returns true when it is one of StarPlan's; returns false, untouched, otherwise. */
export type StarplanHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A feed's answer as kept: an error body, or the feed's template, which each export fills with UIDs and a stamp of its own. */
type KeptFeed = { body: Body } | { feed: ExportableFeed };

/**
 * At most this many bytes of answers are kept. At scale 100 the 9,600 answers of a term come to about 250 MB,
 * nearly all of it feeds (their size depends on the term, so on the day); past the limit answers are served
 * without being kept.
 */
const KEPT_LISTS_LIMIT = 64 * 2 ** 20;
const KEPT_FEEDS_LIMIT = 512 * 2 ** 20;

export function createStarplanHandler(deps: StarplanHandlerDeps): StarplanHandler {
  const now = deps.now ?? (() => new Date());
  // Paths compare as express compared them: without case, a trailing slash allowed.
  const base = deps.basePath.toLowerCase();
  // Rendering is most of what an answer costs; an unchanged model is answered from what was kept. A
  // misbehaving answer is built anew and never kept: it is not what the model says.
  const keptLists = new KeptAnswers<Body>(KEPT_LISTS_LIMIT, (body) => body.bytes.length);
  const keptFeeds = new KeptAnswers<KeptFeed>(KEPT_FEEDS_LIMIT, (feed) => ('body' in feed ? feed.body.bytes.length : feed.feed.template.bytes.length));

  const json = async (res: ServerResponse, url: string, query: Query): Promise<void> => {
    const method = stringParam(query, 'm') ?? '';
    const behaviour = deps.misbehaviours.take(method);
    const build = () => jsonBody(misbehavedJson(answerJsonQuery(deps.model(), method, query), behaviour));
    await sendBody(res, behaviour, () => (behaviour ? build() : keptLists.get(deps.version(), url, build)));
  };

  const ical = async (req: IncomingMessage, res: ServerResponse, url: string, query: Query): Promise<void> => {
    const behaviour = deps.misbehaviours.take('ical');
    if (deps.validators && !behaviour) {
      // An answer, a feed or an error, depends only on the model and the query, so the model's version
      // validates every one. Weak: the same model gives the same events, though DTSTAMP differs each time.
      const etag = `W/"${deps.version()}"`;
      res.setHeader('ETag', etag);
      if (namesCurrent(req.headers['if-none-match'], etag)) {
        res.writeHead(304).end();
        return;
      }
    }
    const build = (): KeptFeed => {
      const answer = misbehavedIcal(answerIcalQuery(deps.model(), query), behaviour);
      if ('error' in answer) return { body: jsonBody(answer) };
      return { feed: exportableFeed(renderGroupCalendar(answer.groupShortname, answer.entries)) };
    };
    await sendBody(res, behaviour, () => {
      const feed = behaviour ? build() : keptFeeds.get(deps.version(), url, build);
      if ('body' in feed) return feed.body;
      const sending = { once: (event: 'close', listener: () => void) => res.once(event, listener), connectionEnded: () => req.socket.destroyed };
      return { contentType: ICAL_CONTENT_TYPE, bytes: exportFeed(feed.feed, sending, now()) };
    });
  };

  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    // A fragment is no part of what a server is asked for.
    const url = (req.url ?? '/').split('#', 1)[0] as string;
    const queryAt = url.indexOf('?');
    const path = (queryAt < 0 ? url : url.slice(0, queryAt)).toLowerCase().replace(/\/$/, '');
    if (path !== `${base}/json` && path !== `${base}/ical`) return false;
    const query = parseQuery(queryAt < 0 ? '' : url.slice(queryAt + 1));
    const answered = path === `${base}/json` ? json(res, url, query) : ical(req, res, url, query);
    // An answer that cannot be built is a server error, never a crash.
    answered.catch((error: unknown) => {
      deps.onError(error);
      sendServerError(res);
    });
    return true;
  };
}

/** If-None-Match: a list of tags or `*`, compared weakly (RFC 9110 section 13.1.2). */
function namesCurrent(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

function jsonBody(answer: QueryAnswer): Body {
  const payload = 'error' in answer ? errorPayload(answer.error) : wrapItems(answer.items);
  return { contentType: JSON_CONTENT_TYPE, bytes: encodeLatin1Json(payload) };
}

function misbehavedJson(answer: QueryAnswer, behaviour: Misbehaviour | undefined): QueryAnswer {
  if (behaviour?.failure === 'error') return { error: behaviour.errorText ?? 'internal error' };
  if (behaviour?.failure === 'empty') return { items: [] };
  if (behaviour?.faults && 'items' in answer) return { items: garbleItems(answer.items, behaviour.faults) };
  return answer;
}

function misbehavedIcal(answer: IcalAnswer, behaviour: Misbehaviour | undefined): IcalAnswer {
  if (behaviour?.failure === 'error') return { error: behaviour.errorText ?? 'internal error' };
  if ('error' in answer) return answer;
  if (behaviour?.failure === 'empty') return { ...answer, entries: [] };
  if (behaviour?.faults) return { ...answer, entries: garbleEntries(answer.entries, behaviour.faults) };
  return answer;
}
