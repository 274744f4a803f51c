/**
 * HTTP-agnostic domain errors. Services throw them; the error middleware maps them to the spec's
 * envelope `{error: {code, message, details}}` and status code.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(400, 'VALIDATION_ERROR', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, 'UNAUTHORIZED', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'FORBIDDEN', message);
  }
}

export class NotFoundError extends AppError {
  /** The spec wants the message to name the resource kind and the id. */
  constructor(kind: string, id: string) {
    super(404, 'NOT_FOUND', `${kind} with id ${id} not found`, { resource: kind, id });
  }
}

export class RouteNotFoundError extends AppError {
  constructor(method: string, path: string) {
    super(404, 'NOT_FOUND', `Route ${method} ${path} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'CONFLICT', message);
  }
}

export class GoneError extends AppError {
  constructor(message: string) {
    super(410, 'GONE', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'RATE_LIMITED', 'Rate limit exceeded, retry later', { retryAfterSeconds });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, 'SERVICE_UNAVAILABLE', message);
  }
}
