/** Writes an answer, honouring a misbehaviour's delay, 500, truncation and garbage. */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { padded } from '../garble/record-faults.js';
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
export async function sendBody(res: ServerResponse, behaviour: Misbehaviour | undefined, build: () => Body): Promise<void> {
  if (behaviour?.delayMs) await sleep(behaviour.delayMs);
  if (behaviour?.failure === 'http500') {
    sendServerError(res);
    return;
  }
  const body = build();
  send(res, 200, body.contentType, misbehavedBytes(body.bytes, behaviour));
}

/**
 * The error page of a servlet container, as StarPlan's server sends it. An answer already begun cannot turn
 * into one: its connection is cut, so the client sees the body end short.
 */
export function sendServerError(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  send(res, 500, 'text/html; charset=ISO-8859-1', SERVER_ERROR_PAGE);
}

function send(res: ServerResponse, status: number, contentType: string, bytes: Buffer): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': bytes.length }).end(bytes);
}

function misbehavedBytes(bytes: Buffer, behaviour: Misbehaviour | undefined): Buffer {
  if (behaviour?.failure === 'truncate') return bytes.subarray(0, Math.floor(bytes.length / 2));
  if (behaviour?.failure === 'garbage') return garbageLike(bytes);
  return padded(bytes, behaviour?.faults);
}

/**
 * Bytes as long as the real answer and as broken as a damaged proxy makes them: every byte value, NULs and
 * invalid UTF-8 included. Derived from the length, so a test sees the same garbage each time.
 */
function garbageLike(bytes: Buffer): Buffer {
  const garbage = Buffer.alloc(Math.max(bytes.length, 64));
  let state = garbage.length;
  for (let index = 0; index < garbage.length; index += 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    garbage[index] = state >>> 24;
  }
  return garbage;
}
