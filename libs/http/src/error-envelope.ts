import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { isDependencyOutage } from './dependency-outage.js';
import { AppError, RouteNotFoundError, ServiceUnavailableError, ValidationError } from './errors.js';
import { validationDetails } from './validation.js';

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { code: error.code, message: error.message, details: error.details } };
}

/** Unknown routes answer in the envelope, never with Express' HTML page. */
export const routeNotFound: RequestHandler = (req, _res, next) => {
  next(new RouteNotFoundError(req.method, req.path));
};

/** Translates anything thrown into the envelope; only 5xx are logged as errors, and no stack leaves. */
export const errorEnvelope: ErrorRequestHandler = (raw, req, res, _next) => {
  const error = toAppError(raw);
  if (error.status >= 500) req.log?.error({ err: raw }, 'request failed');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error.code === 'RATE_LIMITED' && 'retryAfterSeconds' in error) {
    res.setHeader('Retry-After', String(error.retryAfterSeconds));
  }
  res.status(error.status).json(errorBody(error));
};

function toAppError(raw: unknown): AppError {
  if (raw instanceof AppError) return raw;
  if (raw instanceof ZodError) return new ValidationError('Request validation failed', validationDetails(raw));
  const bodyParserType = (raw as { type?: string } | null)?.type;
  if (bodyParserType === 'entity.parse.failed') return new ValidationError('Malformed JSON body');
  // The spec's one status for a body it cannot take is 400; a body over the limit is refused like any other.
  if (bodyParserType === 'entity.too.large') return new ValidationError(`Body validation failed: the body exceeds ${bodyLimitOf(raw)} bytes`);
  if (bodyParserType === 'encoding.unsupported' || bodyParserType === 'charset.unsupported') {
    return new ValidationError('Unsupported body encoding');
  }
  if (isDependencyOutage(raw)) return new ServiceUnavailableError('The service cannot reach its database; try again shortly');
  const status = (raw as { status?: number } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(status, 'BAD_REQUEST', 'Bad request');
  }
  return new AppError(500, 'INTERNAL_ERROR', 'Internal server error');
}

/** The limit body-parser names on its error, in bytes. */
function bodyLimitOf(raw: unknown): string {
  const limit = (raw as { limit?: unknown }).limit;
  return typeof limit === 'number' ? String(limit) : 'the size limit in';
}
