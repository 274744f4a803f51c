/** The upstream contract: `json?m=...` and `ical?...`, errors as HTTP 200 bodies. */
import { Router } from 'express';
import { fillGroupCalendar, ICAL_CONTENT_TYPE, renderGroupCalendar, type CalendarTemplate } from '../encode/group-calendar.js';
import { encodeLatin1Json, errorPayload, JSON_CONTENT_TYPE, wrapItems } from '../encode/starplan-json.js';
import type { Misbehaviour, Misbehaviours } from '../misbehave.js';
import type { UniversityModel } from '../model/university-model.js';
import { answerIcalQuery, type IcalAnswer } from './ical-query.js';
import { answerJsonQuery, type QueryAnswer } from './json-queries.js';
import { KeptAnswers } from './kept-answers.js';
import { stringParam } from './query-params.js';
import { sendBody, type Body } from './send-body.js';

export interface StarplanRouterDeps {
  model: () => UniversityModel;
  misbehaviours: Misbehaviours;
  now?: () => Date;
  /** The model's version: it moves with every change, so whatever was built from the model may be kept until it does. */
  version: () => string;
  /** Group feeds carry a weak ETag of the version and answer 304 to it (see SimulatorOptions.validators). */
  validators?: boolean;
}

/** An answer as kept: the bytes, or a feed's template that each export fills with UIDs and a stamp of its own. */
type Kept = { body: Body } | { contentType: string; template: CalendarTemplate };

/**
 * At most this many bytes of answers are kept: every group feed of a
 * term at scale 100 (about 7,200 feeds of up to 20 kB), with room to spare.
 */
const KEPT_ANSWERS_LIMIT = 256 * 2 ** 20;

export function createStarplanRouter(deps: StarplanRouterDeps): Router {
  const router = Router();
  const now = deps.now ?? (() => new Date());
  // Rendering a feed is most of what an answer costs; an unchanged model is answered from what was kept.
  // A misbehaving answer is built anew and never kept: it is not what the model says.
  const kept = new KeptAnswers<Kept>(KEPT_ANSWERS_LIMIT, (answer) => ('body' in answer ? answer.body.bytes.length : answer.template.length));
  const keptOrBuilt = (key: string, behaviour: Misbehaviour | undefined, build: () => Kept): Kept =>
    behaviour ? build() : kept.get(deps.version(), key, build);

  router.get('/json', async (req, res) => {
    const method = stringParam(req.query, 'm') ?? '';
    const behaviour = deps.misbehaviours.take(method);
    await sendBody(res, behaviour, () =>
      bodyOf(keptOrBuilt(req.url, behaviour, () => ({ body: jsonBody(misbehavedJson(answerJsonQuery(deps.model(), method, req.query), behaviour)) }))),
    );
  });

  router.get('/ical', async (req, res) => {
    const behaviour = deps.misbehaviours.take('ical');
    if (deps.validators && !behaviour) {
      // An answer, a feed or an error, depends only on the model and the query, so the model's version
      // validates every one. Weak: the same model gives the same events, though DTSTAMP differs each time.
      const etag = `W/"${deps.version()}"`;
      res.set('ETag', etag);
      if (namesCurrent(req.headers['if-none-match'], etag)) {
        res.status(304).end();
        return;
      }
    }
    await sendBody(res, behaviour, () => {
      const answer = keptOrBuilt(req.url, behaviour, () => {
        const query = misbehavedIcal(answerIcalQuery(deps.model(), req.query), behaviour);
        if ('error' in query) return { body: jsonBody(query) };
        return { contentType: ICAL_CONTENT_TYPE, template: renderGroupCalendar(query.groupShortname, query.entries) };
      });
      return 'body' in answer ? answer.body : { contentType: answer.contentType, bytes: fillGroupCalendar(answer.template, now()) };
    });
  });

  return router;
}

function bodyOf(answer: Kept): Body {
  if (!('body' in answer)) throw new Error('a JSON answer is kept as bytes');
  return answer.body;
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
  return answer;
}

function misbehavedIcal(answer: IcalAnswer, behaviour: Misbehaviour | undefined): IcalAnswer {
  if (behaviour?.failure === 'error') return { error: behaviour.errorText ?? 'internal error' };
  if (behaviour?.failure === 'empty' && !('error' in answer)) return { ...answer, entries: [] };
  return answer;
}
