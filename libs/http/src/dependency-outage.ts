/** Socket errors of a peer that went away or never answered. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/** PostgreSQL SQLSTATEs that mean "the server is not there right now", not "your query is wrong". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * True for an error that says a dependency (the service's database above all) is unreachable or restarting:
 * such a request answers 503 SERVICE_UNAVAILABLE, which clients may retry, rather than 500.
 */
export function isDependencyOutage(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  if (name === 'KnexTimeoutError') return true;
  // node-postgres reports a server that vanished mid-query without a code.
  return typeof message === 'string' && /Connection terminated/i.test(message);
}
