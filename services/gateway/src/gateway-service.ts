import { topics } from '@timetable/contracts';
import { defineService, type AppModule, type ServiceBuildContext } from '@timetable/service-kit';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { createGatewayApp } from './create-gateway-app.js';
import { gatewayProcessOverrides, type GatewayOverrides } from './gateway-process-overrides.js';

/** What the gateway's build reads of the config, whichever host runs it. */
export type GatewaySettings = Pick<GatewayConfig, 'RATE_LIMITS' | 'REGISTER_LIMITS' | 'TIME_ZONE' | 'publicBaseUrl' | 'LEGACY_HOSTS' | 'TRUST_PROXY'>;

/**
 * The only public entry: keys, limits, usage recording, the documents and the page, in front of every
 * service's routes. It owns no store and no route group (it answers each service's routes on its behalf);
 * it produces the usage events developer-auth counts.
 */
export const gatewayService = defineService({
  name: 'gateway',
  loadConfig: loadGatewayConfig,
  consumes: [],
  produces: [topics.usage.name],
  routes: [],
  jobs: [],
  scalable: true,
  processOverrides: gatewayProcessOverrides,
  build: ({ config, logger, bus, overrides }: ServiceBuildContext<GatewaySettings, GatewayOverrides>): Promise<AppModule> =>
    Promise.resolve({
      name: 'gateway',
      listener: createGatewayApp({
        logger,
        upstreams: overrides.upstreams,
        readiness: overrides.readiness,
        keyVerifier: overrides.keyVerifier,
        identity: overrides.identity,
        rateLimiter: overrides.rateLimiter,
        rateTiers: config.RATE_LIMITS,
        registerTiers: config.REGISTER_LIMITS,
        ...(overrides.responses ? { responses: overrides.responses } : {}),
        timeZone: config.TIME_ZONE,
        bus,
        publicBaseUrl: config.publicBaseUrl,
        legacyHosts: config.LEGACY_HOSTS,
        trustProxy: config.TRUST_PROXY,
      }),
      // Its work is the requests it answers: the host stops those by closing the server.
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    }),
});
