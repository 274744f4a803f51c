import { z } from 'zod';

/**
 * Why a handler failed. `data`: the record itself is refused (a value out of range, a constraint, invalid
 * input), so retrying it will not help for long and it may be put aside. `infrastructure`: something the
 * handler needs is away (a connection, a timeout, a database shutting down); the record is retried as long
 * as the outage lasts and never put aside. What is not recognised counts as infrastructure: a record is
 * never put aside on a guess.
 */
export type FailureKind = 'data' | 'infrastructure';

export interface Failure {
  kind: FailureKind;
  /** What decided it, for logs: `sqlstate 22003`, `validation`, `ECONNREFUSED`, `unknown`... */
  reason: string;
}

// SQLSTATE classes: 22 data exception, 23 integrity constraint violation.
const DATA_SQLSTATE_CLASSES = new Set(['22', '23']);
// 08 connection exception, 53 insufficient resources (too many connections, disk full), 57 operator
// intervention (admin shutdown, statement cancelled or timed out), 58 system error, XX internal error.
const INFRASTRUCTURE_SQLSTATE_CLASSES = new Set(['08', '53', '57', '58', 'XX']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const TIMEOUT_NAMES = new Set(['KnexTimeoutError', 'TimeoutError', 'AbortError']);
/** How far a chain of `cause`s is followed. */
const MAX_CAUSES = 5;

/** Classifies a handler's error, following its causes until one is recognised. */
export function failureOf(error: unknown): Failure {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && typeof current === 'object' && current !== null; depth += 1) {
    const known = recognise(current);
    if (known) return known;
    current = (current as { cause?: unknown }).cause;
  }
  return { kind: 'infrastructure', reason: 'unknown' };
}

function recognise(error: object): Failure | undefined {
  if (isValidationError(error)) return { kind: 'data', reason: 'validation' };
  const sqlState = sqlStateOf(error);
  if (sqlState !== undefined) {
    const sqlClass = sqlState.slice(0, 2);
    if (DATA_SQLSTATE_CLASSES.has(sqlClass)) return { kind: 'data', reason: `sqlstate ${sqlState}` };
    return { kind: 'infrastructure', reason: INFRASTRUCTURE_SQLSTATE_CLASSES.has(sqlClass) ? `sqlstate ${sqlState}` : `unknown sqlstate ${sqlState}` };
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return { kind: 'infrastructure', reason: code };
  const name = (error as { name?: unknown }).name;
  if (typeof name === 'string' && TIMEOUT_NAMES.has(name)) return { kind: 'infrastructure', reason: 'timeout' };
  return undefined;
}

/** zod's error, also when another copy of zod threw it. */
function isValidationError(error: object): boolean {
  if (error instanceof z.core.$ZodError) return true;
  return (error as { name?: unknown }).name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}

/** The SQLSTATE of a PostgreSQL error (pg's DatabaseError: a five-character code and a severity). */
function sqlStateOf(error: object): string | undefined {
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}
