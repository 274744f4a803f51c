import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { UnauthorizedError } from './errors.js';

export const IDENTITY_HEADER = 'x-timetable-developer';
export const IDENTITY_SIGNATURE_HEADER = 'x-timetable-developer-signature';

/**
 * How the gateway tells a service who called, after it checked the API key. The developer id travels
 * with an HMAC under a secret only the gateway and services share, so an outside caller who sends the
 * header cannot impersonate anyone (and the gateway strips both headers from incoming requests anyway).
 */
export class DeveloperIdentity {
  constructor(private readonly secret: string) {
    if (secret.length < 16) throw new Error('the internal identity secret must be at least 16 characters');
  }

  headersFor(developerId: string): Record<string, string> {
    return { [IDENTITY_HEADER]: developerId, [IDENTITY_SIGNATURE_HEADER]: this.sign(developerId) };
  }

  /** The verified developer id, or null when absent or forged. */
  read(headers: IncomingHttpHeaders): string | null {
    const developerId = headers[IDENTITY_HEADER];
    const signature = headers[IDENTITY_SIGNATURE_HEADER];
    if (typeof developerId !== 'string' || typeof signature !== 'string') return null;
    const expected = Buffer.from(this.sign(developerId));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given) ? developerId : null;
  }

  private sign(developerId: string): string {
    return createHmac('sha256', this.secret).update(developerId).digest('hex');
  }
}

/** Guards a key-required route inside a service; the gateway has already answered 401 for bad keys. */
export function requireDeveloper(identity: DeveloperIdentity): RequestHandler {
  return (req, res, next) => {
    const developerId = identity.read(req.headers);
    if (!developerId) throw new UnauthorizedError('Missing X-API-Key header');
    res.locals.developerId = developerId;
    next();
  };
}

export function developerIdOf(res: Response): string {
  const developerId: unknown = res.locals.developerId;
  if (typeof developerId !== 'string') throw new UnauthorizedError('Missing X-API-Key header');
  return developerId;
}
