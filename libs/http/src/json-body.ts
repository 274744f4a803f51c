import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { ValidationError } from './errors.js';

/** No body of this API nests more than a few levels; far deeper JSON is only ever a probe. */
export const MAX_BODY_DEPTH = 32;

const rawBodies = new WeakMap<IncomingMessage, Buffer>();

export interface JsonBodyOptions {
  /** Largest accepted body; beyond it 400 VALIDATION_ERROR. */
  limit: string;
  /** Keeps the bytes received (decompressed), for a proxy that forwards them as they came. */
  keepRaw?: boolean;
}

/**
 * Parses JSON bodies and refuses one nested deeper than MAX_BODY_DEPTH with a 400: whatever handles the body
 * next (a schema, a proxy, a log line) then never walks a structure deep enough to exhaust the call stack.
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler[] {
  const verify = options.keepRaw ? (req: IncomingMessage, _res: unknown, raw: Buffer) => void rawBodies.set(req, raw) : undefined;
  return [express.json({ limit: options.limit, strict: true, ...(verify ? { verify } : {}) }), refuseDeepBody];
}

/** The bytes of the JSON body as received, when the app keeps them and the request had one. */
export function rawBodyOf(req: IncomingMessage): Buffer | undefined {
  return rawBodies.get(req);
}

const refuseDeepBody: RequestHandler = (req, _res, next) => {
  if (nestsDeeperThan(req.body, MAX_BODY_DEPTH)) {
    throw new ValidationError(`Body validation failed: the JSON nests deeper than ${MAX_BODY_DEPTH} levels`);
  }
  next();
};

/** Walked with a stack of its own and stopped at the first value past the limit, so any depth is safe. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const item of Object.values(next.value)) pending.push({ value: item, depth });
  }
  return false;
}
