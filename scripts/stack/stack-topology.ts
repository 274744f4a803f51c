import { createServer } from 'node:net';
import { gatewayService } from '@timetable/gateway';
import { SERVICE_DEFINITIONS, type ServiceDefinitionName } from '@timetable/standalone';

export interface StackService {
  name: ServiceDefinitionName;
  /** `services/<name>/src/main.ts`, which runs the definition. */
  entry: string;
  /** Runs `--replicas` times. */
  scalable: boolean;
  /** What the process is deployed with (the sync's heap cap). */
  nodeOptions: readonly string[];
}

/** The service processes of the distributed mode: one per service definition, as each declares itself. */
export const STACK_SERVICES: readonly StackService[] = SERVICE_DEFINITIONS.map((definition) => ({
  name: definition.name,
  entry: `services/${definition.name}/src/main.ts`,
  scalable: definition.scalable,
  nodeOptions: definition.nodeOptions ?? [],
}));

export type StackServiceName = ServiceDefinitionName;

export const GATEWAY_ENTRY = `services/${gatewayService.name}/src/main.ts`;
export const SIMULATOR_ENTRY = 'tools/starplan-sim/src/main.ts';

/** `catalog-api` for the first replica, `catalog-api-2` for the second. */
export function replicaName(service: string, replica: number): string {
  return replica === 1 ? service : `${service}-${replica}`;
}

/**
 * Gateway replica n proxies to replica n of each scalable service (and to the single sync and
 * developer-auth): no load balancer needed, and every replica gets traffic once clients spread over gateways.
 */
export function gatewayUpstreamEnv(replica: number, urlOf: (name: string) => string): Record<string, string> {
  const pick = (service: StackServiceName) => {
    const definition = STACK_SERVICES.find((candidate) => candidate.name === service);
    return urlOf(definition?.scalable ? replicaName(service, replica) : service);
  };
  return {
    CATALOG_API_URL: pick('catalog-api'),
    SYNC_URL: pick('sync'),
    CHANGES_URL: pick('changes'),
    WEBHOOKS_URL: pick('webhook-dispatcher'),
    DEVELOPER_AUTH_URL: pick('developer-auth'),
  };
}

/**
 * Hands out ports nobody listens on right now and never the same one twice in a stack, nor the gateway's
 * own: a child binds its port only a moment later, so the operating system alone could hand it out again.
 */
export class PortAllocator {
  private readonly taken = new Set<number>();

  constructor(reserved: number[] = []) {
    for (const port of reserved) if (port > 0) this.taken.add(port);
  }

  async next(): Promise<number> {
    for (;;) {
      const port = await freePort();
      if (this.taken.has(port)) continue;
      this.taken.add(port);
      return port;
    }
  }
}

/** A port nobody listens on right now (the child binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
