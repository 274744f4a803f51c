/** The upstream contract: `json?m=...` and `ical?...`, errors as HTTP 200 bodies. */
import { Router } from 'express';
import { ICAL_CONTENT_TYPE, writeGroupCalendar } from '../encode/group-calendar.js';
import { encodeLatin1Json, errorPayload, JSON_CONTENT_TYPE, wrapItems } from '../encode/starplan-json.js';
import type { Misbehaviour, Misbehaviours } from '../misbehave.js';
import type { UniversityModel } from '../model/university-model.js';
import { answerIcalQuery, type IcalAnswer } from './ical-query.js';
import { answerJsonQuery, type QueryAnswer } from './json-queries.js';
import { stringParam } from './query-params.js';
import { sendBody, type Body } from './send-body.js';

export interface StarplanRouterDeps {
  model: () => UniversityModel;
  misbehaviours: Misbehaviours;
  now?: () => Date;
  /** The model's version, when group feeds carry validators (see SimulatorOptions.validators). */
  version?: () => string;
}

export function createStarplanRouter(deps: StarplanRouterDeps): Router {
  const router = Router();
  const now = deps.now ?? (() => new Date());

  router.get('/json', async (req, res) => {
    const method = stringParam(req.query, 'm') ?? '';
    const behaviour = deps.misbehaviours.take(method);
    await sendBody(res, behaviour, () => jsonBody(misbehavedJson(answerJsonQuery(deps.model(), method, req.query), behaviour)));
  });

  router.get('/ical', async (req, res) => {
    const behaviour = deps.misbehaviours.take('ical');
    if (deps.version && !behaviour) {
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
      const answer = misbehavedIcal(answerIcalQuery(deps.model(), req.query), behaviour);
      if ('error' in answer) return jsonBody(answer);
      const text = writeGroupCalendar(answer.groupShortname, answer.entries, now());
      return { contentType: ICAL_CONTENT_TYPE, bytes: Buffer.from(text, 'utf8') };
    });
  });

  return router;
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
