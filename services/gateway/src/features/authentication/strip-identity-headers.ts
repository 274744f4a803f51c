import type { RequestHandler } from 'express';
import { IDENTITY_HEADER } from '@timetable/http';

/**
 * Removes every incoming `x-timetable-developer*` header, so only the gateway's own, signed identity
 * ever reaches a service, whatever an outside caller sends.
 */
export const stripIdentityHeaders: RequestHandler = (req, _res, next) => {
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith(IDENTITY_HEADER)) delete req.headers[name];
  }
  next();
};
