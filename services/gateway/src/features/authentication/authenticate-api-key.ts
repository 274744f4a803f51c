import type { RequestHandler } from 'express';
import type { KeyVerifier } from '@timetable/contracts';
import { ServiceUnavailableError, UnauthorizedError, type DeveloperIdentity } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import type { RouteRules } from './key-routes.js';

export const API_KEY_PREFIX = 'spk_';

export interface AuthenticationDeps {
  /** Absent while the embedded root has no developer-auth module: key routes then answer 503. */
  keyVerifier: KeyVerifier | undefined;
  identity: DeveloperIdentity;
  /** Which paths need a key, from the gateway's route list. */
  rules: RouteRules;
  logger: Logger;
}

/**
 * Checks X-API-Key on key-required routes and forwards the developer's signed identity. Every request
 * asks the verifier afresh (no cache), so a regenerated or deactivated key stops working at once on
 * every replica.
 */
export function authenticateApiKey(deps: AuthenticationDeps): RequestHandler {
  return async (req, res, next) => {
    if (!deps.rules.isKeyRoute(req.path)) return next();
    // Node lower-cases header names, which makes the lookup case-insensitive.
    const apiKey = req.headers['x-api-key'];
    if (apiKey === undefined || apiKey === '') throw new UnauthorizedError('Missing X-API-Key header');
    if (typeof apiKey !== 'string' || !apiKey.startsWith(API_KEY_PREFIX)) {
      throw new UnauthorizedError('Invalid or revoked API key');
    }
    const developer = await verify(deps, apiKey);
    if (!developer) throw new UnauthorizedError('Invalid or revoked API key');
    Object.assign(req.headers, deps.identity.headersFor(developer.developerId));
    res.locals.developerId = developer.developerId;
    next();
  };
}

async function verify(deps: AuthenticationDeps, apiKey: string): Promise<{ developerId: string } | null> {
  if (!deps.keyVerifier) throw new ServiceUnavailableError('API key verification is not available');
  try {
    return await deps.keyVerifier.verify(apiKey);
  } catch (error) {
    deps.logger.error({ err: error }, 'API key verification failed');
    throw new ServiceUnavailableError('API key verification is temporarily unavailable');
  }
}
