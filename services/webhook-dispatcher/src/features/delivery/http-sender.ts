import { Agent, request } from 'undici';
import { AddressNotAllowedError, type AddressGuard } from './address-guard.js';
import { AttemptSignal } from './attempt-signal.js';

/** What one HTTP attempt produced; `responseCode` null means no answer (network error, timeout, refusal). */
export interface AttemptResult {
  ok: boolean;
  responseCode: number | null;
  responseBody: string | null;
  errorMessage: string | null;
  /** Cut short by the dispatcher's shutdown: not an attempt to count, the delivery goes back to due. */
  interrupted?: boolean;
}

export const RESPONSE_BODY_LIMIT = 1000;
// Enough bytes for 1000 UTF-16 code units of any UTF-8 text; the rest of a large answer is never read.
const RESPONSE_READ_LIMIT_BYTES = 4 * RESPONSE_BODY_LIMIT;
/** Subscriber URLs whose host name is kept parsed: a claim holds many deliveries to few URLs. */
const HOSTNAME_CACHE_SIZE = 1000;

export interface HttpSenderDeps {
  /** Checks every address a delivery connects to. */
  guard: AddressGuard;
  /** DELIVERY_TIMEOUT_MS */
  timeoutMs: number;
  /**
   * DELIVERY_HOST_CONCURRENCY: connections kept per origin. The dispatcher starts a host's next attempt the
   * moment the last one ended, sometimes before the connection is handed back to the pool; with this cap
   * the attempt waits for it instead of opening another. Default: no cap.
   */
  connectionsPerHost?: number;
}

/**
 * POSTs one signed body. Redirects are never followed (undici's `request` has no redirect handling
 * unless asked), so a 3xx is a failed attempt rather than a way to reach a host the subscriber did not name.
 */
export class HttpSender {
  private readonly agent: Agent;
  private readonly guard: AddressGuard;
  private readonly timeoutMs: number;
  /** Requests under way and the shutdown signal each obeys: one listener per signal, not one per request. */
  private readonly active = new Map<AttemptSignal, AbortSignal>();
  private readonly watched = new WeakSet<AbortSignal>();
  private readonly hostnames = new Map<string, string>();

  constructor(deps: HttpSenderDeps) {
    this.guard = deps.guard;
    this.timeoutMs = deps.timeoutMs;
    this.agent = new Agent({ connect: { lookup: deps.guard.lookup }, keepAliveTimeout: 10_000, connections: deps.connectionsPerHost ?? null });
  }

  async post(url: string, headers: Record<string, string>, body: string, shutdown?: AbortSignal): Promise<AttemptResult> {
    const signal = new AttemptSignal();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      signal.abort(new Error(`Timed out after ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    if (shutdown) this.obey(signal, shutdown);
    try {
      this.guard.checkLiteral(this.hostnameOf(url));
      const response = await request(url, { method: 'POST', headers, body, signal, dispatcher: this.agent });
      const responseBody = await readCapped(response.body).catch(() => null);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return { ok, responseCode: response.statusCode, responseBody, errorMessage: null };
    } catch (error) {
      if (shutdown?.aborted && !timedOut) {
        return { ok: false, responseCode: null, responseBody: null, errorMessage: 'Interrupted by shutdown', interrupted: true };
      }
      return { ok: false, responseCode: null, responseBody: null, errorMessage: describeFailure(error, timedOut, this.timeoutMs) };
    } finally {
      clearTimeout(timer);
      this.active.delete(signal);
    }
  }

  private hostnameOf(url: string): string {
    let hostname = this.hostnames.get(url);
    if (hostname === undefined) {
      hostname = new URL(url).hostname;
      if (this.hostnames.size >= HOSTNAME_CACHE_SIZE) this.hostnames.clear();
      this.hostnames.set(url, hostname);
    }
    return hostname;
  }

  private obey(attempt: AttemptSignal, shutdown: AbortSignal): void {
    if (shutdown.aborted) {
      attempt.abort(new Error('Interrupted by shutdown'));
      return;
    }
    this.active.set(attempt, shutdown);
    if (this.watched.has(shutdown)) return;
    this.watched.add(shutdown);
    shutdown.addEventListener('abort', () => {
      for (const [each, signal] of this.active) if (signal === shutdown) each.abort(new Error('Interrupted by shutdown'));
    }, { once: true });
  }

  /** Idempotent: a service stopped twice (a second signal, a test harness) must not fail the second time. */
  async close(): Promise<void> {
    if (this.agent.closed || this.agent.destroyed) return;
    await this.agent.close();
  }
}

/** The response's first bytes as text; listeners rather than `for await`, whose iterator costs more than a 204's empty body. */
function readCapped(body: NodeJS.ReadableStream & { destroy(): void }): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_BODY_LIMIT));
    };
    body.on('data', (chunk: Buffer) => {
      if (done) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_READ_LIMIT_BYTES) {
        finish();
        body.destroy();
      }
    });
    body.once('end', finish);
    body.once('error', (error: Error) => {
      if (!done) reject(error);
      done = true;
    });
    body.once('close', () => {
      if (!done) reject(new Error('response closed before its end'));
      done = true;
    });
  });
}

function describeFailure(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `Timed out after ${timeoutMs} ms`;
  const cause = (error as { cause?: unknown }).cause;
  const root = cause instanceof Error ? cause : error;
  if (root instanceof AddressNotAllowedError) return root.message;
  const code = (root as { code?: string }).code;
  const message = root instanceof Error ? root.message : String(root);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
