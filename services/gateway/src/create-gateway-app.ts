import type { RequestListener } from 'node:http';
import express, { Router } from 'express';
import * as contracts from '@timetable/contracts';
import type { ApiRoute, KeyVerifier } from '@timetable/contracts';
import type { RateLimiter, RateTier, ResponseStore } from '@timetable/cache';
import { weekLabelClock } from '@timetable/calendar';
import type { EventBus } from '@timetable/events';
import { createServiceApp, type DeveloperIdentity, type ReadinessCheck } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import type { TrustProxy } from './config.js';
import { buildAsyncApiDocument } from './features/asyncapi/asyncapi-document.js';
import { asyncApiRoute } from './features/asyncapi/asyncapi-route.js';
import { authenticateApiKey } from './features/authentication/authenticate-api-key.js';
import { routeRules } from './features/authentication/key-routes.js';
import { stripIdentityHeaders } from './features/authentication/strip-identity-headers.js';
import { docsRoutes } from './features/docs/docs-routes.js';
import { pageRoutes } from './features/page/page-routes.js';
import { cachedReads } from './features/cached-reads/cached-reads.js';
import { buildOpenApiDocument } from './features/openapi/openapi-document.js';
import { openApiRoute } from './features/openapi/openapi-route.js';
import { PublicReadLimit } from './features/rate-limit/public-read-limit.js';
import { rateLimitPublicReads } from './features/rate-limit/rate-limit-public-reads.js';
import { limitRegistrations } from './features/rate-limit/register-limit.js';
import { EndpointPatterns } from './features/usage/endpoint-patterns.js';
import { recordUsage } from './features/usage/record-usage.js';
import { legacyRedirects } from './features/versioning/legacy-redirects.js';

export interface GatewayDeps {
  logger: Logger;
  /** Handlers for everything under /v1/timetable: in-process service routers or proxies to the services. */
  upstreams: Router[];
  readiness: ReadinessCheck[];
  /** developer-auth's key check; undefined while none is wired, which makes key routes answer 503. */
  keyVerifier: KeyVerifier | undefined;
  identity: DeveloperIdentity;
  rateLimiter: RateLimiter;
  /** RATE_LIMITS: public reads per client. */
  rateTiers: RateTier[];
  /** REGISTER_LIMITS: developer sign-ups per client, counted in the same limiter. */
  registerTiers: RateTier[];
  /**
   * The response store the catalog renders into (the same cache, same key prefix): repeated anonymous GETs
   * are answered from it in front of Express. Absent: every request takes the Express path.
   */
  responses?: ResponseStore;
  /** Where usage events go (topics.usage). */
  bus: EventBus;
  /** Absolute external base URL without a trailing slash. */
  publicBaseUrl: string;
  legacyHosts: string[];
  trustProxy: TrustProxy;
  /**
   * TIME_ZONE, the zone of the catalog's weeks: with it (and `responses`), `/week/current` takes the
   * cached-read path too, as the URL of the week it names at that instant. Without it, it takes Express.
   */
  timeZone?: string;
  /** The clock `/week/current` is resolved by; the system clock unless given. */
  now?: () => Date;
  /** The documented routes; defaults to the whole route contract. */
  apiRoutes?: readonly ApiRoute[];
}

/**
 * The only public entry. A repeated anonymous GET that the catalog already rendered is answered by the
 * cached-read path before Express sees it; everything else goes through Express, where order matters: legacy
 * redirects answer before anything else (a legacy host gets a 301 even for /health), forged identity
 * headers are dropped before any handler sees them, then the service app adds request ids, logs, metrics,
 * /health, /ready, /metrics, the documents (OpenAPI, AsyncAPI, /docs), the page for people (/), and under
 * /v1/timetable: API keys, usage recording, read and sign-up limits, and finally the services.
 */
export function createGatewayApp(deps: GatewayDeps): RequestListener {
  const apiRoutes = deps.apiRoutes ?? contracts.allApiRoutes;
  const rules = routeRules(apiRoutes);
  const limit = new PublicReadLimit({ rateLimiter: deps.rateLimiter, rateTiers: deps.rateTiers, logger: deps.logger });
  const edge = Router();
  edge.use(authenticateApiKey({ keyVerifier: deps.keyVerifier, identity: deps.identity, rules, logger: deps.logger }));
  edge.use(recordUsage({ bus: deps.bus, patterns: new EndpointPatterns(apiRoutes), logger: deps.logger }));
  edge.use(rateLimitPublicReads(limit, rules));
  edge.use(limitRegistrations({ rateLimiter: deps.rateLimiter, tiers: deps.registerTiers, logger: deps.logger }));
  for (const upstream of deps.upstreams) edge.use(upstream);

  const serviceApp = createServiceApp({
    name: 'gateway',
    logger: deps.logger,
    routes: edge,
    readiness: deps.readiness,
    // The distributed proxy forwards JSON bodies as the bytes received.
    keepRawBody: true,
    configure: (app) => {
      app.set('trust proxy', deps.trustProxy);
      app.use(openApiRoute(buildOpenApiDocument(apiRoutes)));
      app.use(asyncApiRoute(buildAsyncApiDocument(contracts.topicDocumentation)));
      app.use(docsRoutes());
      app.use(pageRoutes());
    },
  });

  const gateway = express();
  gateway.disable('x-powered-by');
  gateway.set('trust proxy', deps.trustProxy);
  gateway.use(legacyRedirects({ publicBaseUrl: deps.publicBaseUrl, legacyHosts: deps.legacyHosts }));
  gateway.use(stripIdentityHeaders);
  gateway.use(serviceApp);
  if (!deps.responses) return gateway;

  return cachedReads(
    {
      responses: deps.responses,
      limit,
      trustProxy: gateway.get('trust proxy fn') as (address: string, hop: number) => boolean,
      legacyHosts: deps.legacyHosts,
      rules,
      logger: deps.logger,
      ...(deps.timeZone === undefined ? {} : { currentWeek: weekLabelClock(deps.timeZone, deps.now ?? (() => new Date())) }),
    },
    (req, res) => void gateway(req, res),
  );
}
