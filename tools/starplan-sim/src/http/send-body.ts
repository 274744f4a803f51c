/** Writes an answer, honouring a misbehaviour's delay, 500 and truncation. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'express';
import type { Misbehaviour } from '../misbehave.js';

export interface Body {
  contentType: string;
  bytes: Buffer;
}

const SERVER_ERROR_PAGE = Buffer.from(
  '<html><head><title>Error</title></head><body><h1>HTTP Status 500 - Internal Server Error</h1></body></html>',
  'latin1',
);

/** The body is built after the delay, so a slow answer shows the state at the time it is sent. */
export async function sendBody(res: Response, behaviour: Misbehaviour | undefined, build: () => Body): Promise<void> {
  if (behaviour?.delayMs) await sleep(behaviour.delayMs);
  if (behaviour?.failure === 'http500') {
    res.status(500).set('Content-Type', 'text/html; charset=ISO-8859-1').send(SERVER_ERROR_PAGE);
    return;
  }
  const body = build();
  const bytes = behaviour?.failure === 'truncate' ? body.bytes.subarray(0, Math.floor(body.bytes.length / 2)) : body.bytes;
  res.status(200).set('Content-Type', body.contentType).send(bytes);
}
