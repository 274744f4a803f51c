import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { LOCAL_INFRASTRUCTURE } from '@timetable/testing';
import { repoRoot, StackProcess, type ProcessSpec } from './stack-process.js';
import { createDatabases, databaseNameOf, databaseUrlOf, deleteTopics, dropDatabases, outboxBacklog, type StackInfrastructure } from './stack-resources.js';
import { stackSecretsKey } from './stack-secrets-key.js';
import { GATEWAY_ENTRY, gatewayUpstreamEnv, PortAllocator, replicaName, SIMULATOR_ENTRY, STACK_SERVICES, type StackService } from './stack-topology.js';

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
  /**
   * Extra environment for every service and gateway process (SYNC_INTERVAL_SECONDS, RATE_LIMITS,
   * WEBHOOK_ALLOW_CIDRS, ...); the processes also inherit this process's environment.
   */
  env?: Record<string, string>;
  /** StarPlan base for sync (UPSTREAM_BASE_URL); unset starts the built-in simulator as the upstream. */
  upstreamBaseUrl?: string;
  simulator?: { seed?: number; today?: string };
  /** Called when the supervisor restarts a process that died without being asked to stop. */
  onRestart?: (name: string, exitCode: number | null, signal: string | null, delayMs: number) => void;
  /** Resolve only once sync's first run has been published (default true). */
  waitForFirstSync?: boolean;
  /** Default `.stack/<namespace>/logs` below the repository root. */
  logDir?: string;
  /** Throw-away stack: stop() drops its databases and deletes its topics. */
  ephemeral?: boolean;
  readyTimeoutMs?: number;
}

export interface RunningStack {
  namespace: string;
  gatewayUrl: string;
  /** StarPlan base that sync reads: the simulator's (`<url>/__admin/churn` churns it) or UPSTREAM_BASE_URL. */
  upstreamBaseUrl: string;
  /** The built-in simulator's base, unless an upstream was given. */
  simulatorUrl: string | undefined;
  /** Each service's own database URL, by service name. */
  databaseUrls: Record<string, string>;
  logDir: string;
  /** In start order: simulator, services, further replicas, gateways. */
  processes: StackProcess[];
  process(name: string): StackProcess;
  /** SIGKILL, as a crash would; the supervisor starts it again after a backoff. */
  kill(name: string): Promise<void>;
  /** SIGTERM and keep it stopped (an outage of that service) until `start` or `restart`. */
  stopProcess(name: string): Promise<void>;
  /** Starts a stopped process again and waits until it is ready. */
  startProcess(name: string): Promise<void>;
  /** Stops the process if it runs, starts it again (with `env` changed, if given) and waits until it is ready. */
  restart(name: string, env?: Record<string, string>): Promise<void>;
  /** SIGTERM in reverse start order: the gateways, then every service (together), then the simulator. */
  stop(): Promise<void>;
}

const DEFAULT_INFRASTRUCTURE: StackInfrastructure = LOCAL_INFRASTRUCTURE;

/**
 * The distributed topology on one machine: the StarPlan simulator as upstream, one process per service
 * on its own database and port, Kafka with the registry, Redis, and the gateway in front.
 */
export async function startStack(options: StackOptions = {}): Promise<RunningStack> {
  const namespace = options.namespace ?? `run_${randomBytes(4).toString('hex')}`;
  if (!/^[a-z0-9_]+$/.test(namespace)) throw new Error(`stack namespace must be lower-case letters, digits and _: ${namespace}`);
  const replicas = options.replicas ?? 1;
  const infra = { ...DEFAULT_INFRASTRUCTURE, ...options.infrastructure };
  const stackDir = path.join(repoRoot, '.stack', namespace);
  const logDir = options.logDir ?? path.join(stackDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const webhookSecretsKey = stackSecretsKey(stackDir, options.env?.WEBHOOK_SECRETS_KEY ?? process.env.WEBHOOK_SECRETS_KEY);
  const timeoutMs = options.readyTimeoutMs ?? 180_000;
  const databaseNames = Object.fromEntries(STACK_SERVICES.map(({ name }) => [name, databaseNameOf(namespace, name)]));
  const databaseUrls = Object.fromEntries(Object.entries(databaseNames).map(([name, db]) => [name, databaseUrlOf(infra.databaseUrl, db)]));
  await createDatabases(infra.databaseUrl, Object.values(databaseNames));

  const gatewayPort = options.gatewayPort ?? 0;
  const ports = new PortAllocator([gatewayPort]);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort === 0 ? await ports.next() : gatewayPort}`;
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
    const member = new StackProcess(spec, path.join(logDir, `${spec.name}.log`), options.onRestart);
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
    const simulatorUrl = options.upstreamBaseUrl ? undefined : await startSimulator(add, await ports.next(), options, timeoutMs);
    const upstreamBaseUrl = options.upstreamBaseUrl ?? simulatorUrl ?? '';

    const serviceSpec = async (service: StackService, replica: number): Promise<ProcessSpec> => {
      const port = await ports.next();
      return {
        name: replicaName(service.name, replica),
        entry: service.entry,
        env: {
          ...shared,
          PORT: String(port),
          DATABASE_URL: databaseUrls[service.name] ?? '',
          ...(service.name === 'sync' ? { UPSTREAM_BASE_URL: upstreamBaseUrl } : {}),
          ...(service.name === 'webhook-dispatcher' ? { WEBHOOK_SECRETS_KEY: webhookSecretsKey } : {}),
        },
        url: `http://127.0.0.1:${port}`,
        readyUrl: `http://127.0.0.1:${port}/ready`,
        nodeOptions: [...service.nodeOptions],
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
      const url = replica === 1 ? gatewayUrl : `http://127.0.0.1:${await ports.next()}`;
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
    if (options.waitForFirstSync ?? true) await waitForFirstSync(byName('sync'), databaseUrls.sync ?? '', timeoutMs);

    return {
      namespace,
      gatewayUrl,
      upstreamBaseUrl,
      simulatorUrl,
      databaseUrls,
      logDir,
      processes,
      process: byName,
      kill: (name) => byName(name).kill(),
      async stopProcess(name) {
        await byName(name).stop();
      },
      async startProcess(name) {
        const member = byName(name);
        member.start();
        await member.waitReady(timeoutMs);
      },
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

/** The StarPlan simulator as the stack's upstream; resolves with its base URL. */
async function startSimulator(add: (spec: ProcessSpec) => StackProcess, port: number, options: StackOptions, timeoutMs: number): Promise<string> {
  const simulatorUrl = `http://127.0.0.1:${port}/splan`;
  const simulator = add({
    name: 'simulator',
    entry: SIMULATOR_ENTRY,
    env: {
      SIM_PORT: String(port),
      // Unset here, SIM_SEED and SIM_TODAY come from the stack's own environment like every other variable.
      ...(options.simulator?.seed === undefined ? {} : { SIM_SEED: String(options.simulator.seed) }),
      ...(options.simulator?.today ? { SIM_TODAY: options.simulator.today } : {}),
      LOG_LEVEL: options.env?.LOG_LEVEL ?? 'info',
    },
    url: simulatorUrl,
    readyUrl: `${simulatorUrl}/__admin/misbehave`,
  });
  simulator.start();
  await simulator.waitReady(timeoutMs);
  return simulatorUrl;
}

/**
 * Readiness no longer waits for the upstream, so the stack does: sync's own /sync/status names a fetch and
 * its outbox is empty (every change of the first run is on Kafka; the consumers follow within moments).
 */
async function waitForFirstSync(sync: StackProcess, databaseUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`${sync.url}/v1/timetable/sync/status`).then(
      async (response) => ((await response.json()) as { data?: { lastFetchedAt?: string | null } }).data?.lastFetchedAt,
      () => undefined,
    );
    if (status && (await outboxBacklog(databaseUrl)) === 0) return;
    if (Date.now() > deadline) throw new Error(`sync did not publish its first run within ${timeoutMs} ms\n${sync.tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
