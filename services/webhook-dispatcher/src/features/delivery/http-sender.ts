import { Agent } from 'undici';
import { AddressNotAllowedError, type AddressGuard } from './address-guard.js';
import { AttemptExchange, type AttemptResult } from './attempt-exchange.js';

/** Subscriber URLs kept parsed: a claim holds many deliveries to few URLs. */
const TARGET_CACHE_SIZE = 1000;

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

/** A subscriber URL as undici's dispatch takes it, and the host name the address rules check. */
interface Target {
  origin: string;
  path: string;
  hostname: string;
}

/**
 * POSTs one signed body. Redirects are never followed (undici's dispatch has no redirect handling unless
 * asked), so a 3xx is a failed attempt rather than a way to reach a host the subscriber did not name.
 */
export interface PostOptions {
  /** Aborted when the dispatcher stops: the attempt is interrupted and not counted. */
  shutdown?: AbortSignal;
  /**
   * Replaces the sender's limit for this one attempt; the dispatcher never passes it. It lets a test keep the
   * only connection busy past another attempt's limit without depending on which timer fires first.
   */
  timeoutMs?: number;
}

export class HttpSender {
  private readonly agent: Agent;
  private readonly guard: AddressGuard;
  private readonly timeoutMs: number;
  private readonly timeoutMessage: string;
  /** Attempts under way and the shutdown signal each obeys: one listener per signal, not one per request. */
  private readonly active = new Map<AttemptExchange, AbortSignal>();
  private readonly watched = new WeakSet<AbortSignal>();
  private readonly targets = new Map<string, Target>();

  constructor(deps: HttpSenderDeps) {
    this.guard = deps.guard;
    this.timeoutMs = deps.timeoutMs;
    this.timeoutMessage = timeoutMessage(deps.timeoutMs);
    this.agent = new Agent({ connect: { lookup: deps.guard.lookup }, keepAliveTimeout: 10_000, connections: deps.connectionsPerHost ?? null });
  }

  post(url: string, headers: Record<string, string>, body: string, { shutdown, timeoutMs = this.timeoutMs }: PostOptions = {}): Promise<AttemptResult> {
    return new Promise((resolve) => {
      let target: Target;
      try {
        target = this.targetOf(url);
        this.guard.checkLiteral(target.hostname);
      } catch (error) {
        resolve({ ok: false, responseCode: null, responseBody: null, errorMessage: describeFailure(error) });
        return;
      }
      const exchange = new AttemptExchange((result) => {
        clearTimeout(timer);
        this.active.delete(exchange);
        resolve(result);
      }, describeFailure);
      // Settled only by undici's callbacks or by a cut, both of which come after this line.
      const message = timeoutMs === this.timeoutMs ? this.timeoutMessage : timeoutMessage(timeoutMs);
      const timer = setTimeout(() => exchange.cut({ kind: 'timeout', message }), timeoutMs);
      if (shutdown && !this.obey(exchange, shutdown)) return;
      this.agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body }, exchange);
    });
  }

  private targetOf(url: string): Target {
    let target = this.targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, hostname: parsed.hostname };
      if (this.targets.size >= TARGET_CACHE_SIZE) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  /** False when the shutdown has already begun: the attempt is cut short before it is sent. */
  private obey(exchange: AttemptExchange, shutdown: AbortSignal): boolean {
    if (shutdown.aborted) {
      exchange.cut({ kind: 'shutdown' });
      return false;
    }
    this.active.set(exchange, shutdown);
    if (this.watched.has(shutdown)) return true;
    this.watched.add(shutdown);
    shutdown.addEventListener('abort', () => {
      for (const [each, signal] of this.active) if (signal === shutdown) each.cut({ kind: 'shutdown' });
    }, { once: true });
    return true;
  }

  /** Idempotent: a service stopped twice (a second signal, a test harness) must not fail the second time. */
  async close(): Promise<void> {
    if (this.agent.closed || this.agent.destroyed) return;
    await this.agent.close();
  }
}

function timeoutMessage(timeoutMs: number): string {
  return `Timed out after ${timeoutMs} ms`;
}

function describeFailure(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const root = cause instanceof Error ? cause : error;
  if (root instanceof AddressNotAllowedError) return root.message;
  const code = (root as { code?: string }).code;
  const message = root instanceof Error ? root.message : String(root);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
