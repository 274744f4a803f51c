import { randomBytes } from 'node:crypto';
import type { Router } from 'express';
import { MemoryRateLimiter, parseRateTiers, type RateLimiter, type ResponseStore } from '@timetable/cache';
import { topics, type ApiRoute, type UsageEvent } from '@timetable/contracts';
import { InProcessBus, type EventBus } from '@timetable/events';
import { createGatewayApp, type GatewayDeps } from '@timetable/gateway';
import { DeveloperIdentity, listen, type RunningServer } from '@timetable/http';
import { captureLogger } from '@timetable/testing';
import { FakeKeyVerifier } from './fake-key-verifier.js';
import { fakeUpstream } from './fake-upstream.js';

export const DEVELOPER_ID = '7d3f4a52-6a1e-4c36-9d7e-0c1f3b2a9e11';
export const VALID_KEY = `spk_${'a'.repeat(32)}`;

export interface TestGateway {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** origin + /v1/timetable */
  api: string;
  verifier: FakeKeyVerifier;
  identity: DeveloperIdentity;
  usage: UsageEvent[];
  logLines(): Record<string, unknown>[];
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  rateLimits?: string;
  /** REGISTER_LIMITS; generous unless a test sets it. */
  registerLimits?: string;
  rateLimiter?: RateLimiter;
  legacyHosts?: string[];
  trustProxy?: GatewayDeps['trustProxy'];
  verifier?: FakeKeyVerifier | null;
  apiRoutes?: ApiRoute[];
  /** Replaces the in-process bus (whose usage events land in `usage`). */
  bus?: EventBus;
  upstreams?: (identity: DeveloperIdentity) => Router[];
  /** Turns the cached-read path on, reading from this store. */
  responses?: ResponseStore;
  /** With `responses`, turns the cached-read path on for `/week/current` as well, resolved by `now`. */
  timeZone?: string;
  now?: () => Date;
}

/** A gateway on a free port in front of fake services, with a fake key store and a captured usage topic. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { logger, lines } = captureLogger('warn');
  const identity = new DeveloperIdentity(randomBytes(16).toString('hex'));
  const verifier = options.verifier === undefined ? new FakeKeyVerifier().issue(VALID_KEY, DEVELOPER_ID) : options.verifier;
  const bus: EventBus = new InProcessBus(logger);
  const usage: UsageEvent[] = [];
  const consumer = bus.subscribe({
    groupId: 'test-usage',
    topic: topics.usage,
    fromBeginning: true,
    handleBatch: (events) => {
      for (const event of events) if (event.value) usage.push(event.value);
      return Promise.resolve();
    },
  });
  await consumer.start();
  const app = createGatewayApp({
    logger,
    upstreams: options.upstreams?.(identity) ?? [fakeUpstream(identity)],
    readiness: [],
    keyVerifier: verifier ?? undefined,
    identity,
    rateLimiter: options.rateLimiter ?? new MemoryRateLimiter(),
    rateTiers: parseRateTiers(options.rateLimits ?? '1000/1s'),
    registerTiers: parseRateTiers(options.registerLimits ?? '1000/1s'),
    bus: options.bus ?? bus,
    publicBaseUrl: 'https://api.example.edu',
    legacyHosts: options.legacyHosts ?? [],
    trustProxy: options.trustProxy ?? false,
    ...(options.apiRoutes ? { apiRoutes: options.apiRoutes } : {}),
    ...(options.responses ? { responses: options.responses } : {}),
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const server: RunningServer = await listen(app, 0, '127.0.0.1');
  return {
    origin: server.url,
    api: `${server.url}/v1/timetable`,
    verifier: verifier ?? new FakeKeyVerifier(),
    identity,
    usage,
    logLines: lines,
    close: () => server.close(),
  };
}
