import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, StackProcess, type ProcessSpec } from './stack-process.js';
import { createDatabases, databaseNameOf, databaseUrlOf, deleteTopics, dropDatabases, type StackInfrastructure } from './stack-resources.js';
import { freePort, GATEWAY_ENTRY, gatewayUpstreamEnv, replicaName, SIMULATOR_ENTRY, STACK_SERVICES } from './stack-topology.js';

export interface StackOptions {
  /** Names the databases (`timetable_<ns>_<service>`), topics (`<ns>.`) and Redis keys (`<ns>:`). Default: random. */
  namespace?: string;
  /** Processes of each scalable service (catalog-api, changes, webhook-dispatcher) and of the gateway. */
  replicas?: number;
  infrastructure?: Partial<StackInfrastructure>;
  /** 0 (default) picks a free port. */
  gatewayPort?: number;
  /** PUBLIC_BASE_URL of gateway and catalog; default the gateway's own URL. */
  publicBaseUrl?: string;
  /** Extra environment for every service and gateway process (SYNC_INTERVAL_SECONDS, RATE_LIMITS, ...). */
  env?: Record<string, string>;
  simulator?: { seed?: number; today?: string };
  /** Default `.stack/<namespace>/logs` below the repository root. */
  logDir?: string;
  /** Throw-away stack: stop() drops its databases and deletes its topics. */
  ephemeral?: boolean;
  readyTimeoutMs?: number;
}

export interface RunningStack {
  namespace: string;
  gatewayUrl: string;
  /** StarPlan base of the simulator (`<url>/__admin/churn` churns it). */
  simulatorUrl: string;
  /** Each service's own database URL, by service name. */
  databaseUrls: Record<string, string>;
  logDir: string;
  /** In start order: simulator, services, further replicas, gateways. */
  processes: StackProcess[];
  process(name: string): StackProcess;
  /** SIGKILL, as a crash would. */
  kill(name: string): Promise<void>;
  /** Stops the process if it runs, starts it again (with `env` changed, if given) and waits until it is ready. */
  restart(name: string, env?: Record<string, string>): Promise<void>;
  /** SIGTERM in reverse start order: the gateways, then every service (together), then the simulator. */
  stop(): Promise<void>;
}

const DEFAULT_INFRASTRUCTURE: StackInfrastructure = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: 'redis://127.0.0.1:6379',
  kafkaBrokers: ['127.0.0.1:9092'],
  schemaRegistryUrl: 'http://127.0.0.1:8081/apis/ccompat/v7',
};

/**
 * The distributed topology on one machine: the StarPlan simulator as upstream, one process per service
 * on its own database and port, Kafka with the registry, Redis, and the gateway in front.
 */
export async function startStack(options: StackOptions = {}): Promise<RunningStack> {
  const namespace = options.namespace ?? `run_${randomBytes(4).toString('hex')}`;
  if (!/^[a-z0-9_]+$/.test(namespace)) throw new Error(`stack namespace must be lower-case letters, digits and _: ${namespace}`);
  const replicas = options.replicas ?? 1;
  const infra = { ...DEFAULT_INFRASTRUCTURE, ...options.infrastructure };
  const logDir = options.logDir ?? path.join(repoRoot, '.stack', namespace, 'logs');
  mkdirSync(logDir, { recursive: true });
  const timeoutMs = options.readyTimeoutMs ?? 180_000;
  const databaseNames = Object.fromEntries(STACK_SERVICES.map(({ name }) => [name, databaseNameOf(namespace, name)]));
  const databaseUrls = Object.fromEntries(Object.entries(databaseNames).map(([name, db]) => [name, databaseUrlOf(infra.databaseUrl, db)]));
  await createDatabases(infra.databaseUrl, Object.values(databaseNames));

  const gatewayPort = options.gatewayPort ?? 0;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort === 0 ? await freePort() : gatewayPort}`;
  const publicBaseUrl = options.publicBaseUrl ?? gatewayUrl;
  const shared: Record<string, string> = {
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: infra.schemaRegistryUrl,
    KAFKA_TOPIC_PREFIX: `${namespace}.`,
    REDIS_URL: infra.redisUrl,
    REDIS_KEY_PREFIX: `${namespace}:`,
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_BASE_URL: publicBaseUrl,
    ...options.env,
  };
  const processes: StackProcess[] = [];
  const add = (spec: ProcessSpec) => {
    const member = new StackProcess(spec, path.join(logDir, `${spec.name}.log`));
    processes.push(member);
    return member;
  };
  const byName = (name: string) => {
    const found = processes.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no process ${name} in the stack (${processes.map((p) => p.name).join(', ')})`);
    return found;
  };
  // Gateways first (no new requests), then the services together (each drains its own work), the upstream last.
  const stop = async () => {
    const tiers = [(name: string) => name.startsWith('gateway'), (name: string) => name !== 'simulator', () => true];
    const stopped = new Set<StackProcess>();
    for (const inTier of tiers) {
      const tier = processes.filter((member) => !stopped.has(member) && inTier(member.name));
      await Promise.all(tier.map((member) => member.stop()));
      for (const member of tier) stopped.add(member);
    }
    if (options.ephemeral) {
      await dropDatabases(infra.databaseUrl, Object.values(databaseNames));
      await deleteTopics(infra.kafkaBrokers, `${namespace}.`).catch(() => undefined);
    }
  };

  try {
    const simPort = await freePort();
    const simulatorUrl = `http://127.0.0.1:${simPort}/splan`;
    const simulator = add({
      name: 'simulator',
      entry: SIMULATOR_ENTRY,
      env: {
        SIM_PORT: String(simPort),
        SIM_SEED: String(options.simulator?.seed ?? 1),
        ...(options.simulator?.today ? { SIM_TODAY: options.simulator.today } : {}),
        LOG_LEVEL: options.env?.LOG_LEVEL ?? 'info',
      },
      url: simulatorUrl,
      readyUrl: `${simulatorUrl}/__admin/misbehave`,
    });
    simulator.start();
    await simulator.waitReady(timeoutMs);

    const serviceSpec = async (service: (typeof STACK_SERVICES)[number], replica: number): Promise<ProcessSpec> => {
      const port = await freePort();
      return {
        name: replicaName(service.name, replica),
        entry: service.entry,
        env: {
          ...shared,
          PORT: String(port),
          DATABASE_URL: databaseUrls[service.name] ?? '',
          ...(service.name === 'sync' ? { UPSTREAM_BASE_URL: simulatorUrl } : {}),
        },
        url: `http://127.0.0.1:${port}`,
        readyUrl: `http://127.0.0.1:${port}/ready`,
      };
    };
    // First replicas together (each migrates its own database), further ones after: knex refuses rather
    // than waits when a migration lock is taken.
    const firsts = await Promise.all(STACK_SERVICES.map(async (service) => add(await serviceSpec(service, 1))));
    const urlOf = (name: string) => byName(name).url;
    for (const member of firsts) {
      if (member.name === 'developer-auth') member.spec.env.WEBHOOKS_URL = urlOf('webhook-dispatcher');
      member.start();
    }
    await Promise.all(firsts.map((member) => member.waitReady(timeoutMs)));
    const extras: StackProcess[] = [];
    for (let replica = 2; replica <= replicas; replica += 1) {
      for (const service of STACK_SERVICES.filter((candidate) => candidate.scalable)) extras.push(add(await serviceSpec(service, replica)));
    }
    for (const member of extras) member.start();
    await Promise.all(extras.map((member) => member.waitReady(timeoutMs)));

    const gateways: StackProcess[] = [];
    for (let replica = 1; replica <= replicas; replica += 1) {
      const url = replica === 1 ? gatewayUrl : `http://127.0.0.1:${await freePort()}`;
      gateways.push(
        add({
          name: replicaName('gateway', replica),
          entry: GATEWAY_ENTRY,
          env: { ...shared, PORT: new URL(url).port, ...gatewayUpstreamEnv(replica, urlOf) },
          url,
          readyUrl: `${url}/ready`,
        }),
      );
    }
    for (const gateway of gateways) gateway.start();
    await Promise.all(gateways.map((gateway) => gateway.waitReady(timeoutMs)));

    return {
      namespace,
      gatewayUrl,
      simulatorUrl,
      databaseUrls,
      logDir,
      processes,
      process: byName,
      kill: (name) => byName(name).kill(),
      async restart(name, env) {
        const member = byName(name);
        await member.stop();
        Object.assign(member.spec.env, env);
        member.start();
        await member.waitReady(timeoutMs);
      },
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
