/**
 * `npm run bench:e2e`: end-to-end change latency in distributed mode. Starts a throw-away stack (one process
 * per service, the StarPlan simulator as upstream, real Kafka with the registry, PostgreSQL, Redis), creates a
 * developer and a global webhook that points at a signed-delivery receiver on 127.0.0.1, then renames one
 * upstream lecture BENCH_CHANGES times, one change at a time, and measures for each the time from the instant
 * the simulator applied it to the instant the receiver had the signed delivery of that rename. Contacts only
 * 127.0.0.1 and the shared infrastructure; stops every process it started on exit, on failure and on Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startStack, type RunningStack } from '../scripts/stack/start-stack.js';
import { repoRoot } from '../scripts/stack/stack-process.js';
import { startSignedWebhookReceiver, type ReceivedWebhook, type SignedWebhookReceiver } from './support/signed-webhook-receiver.js';
import { resultsDir } from './support/results-dir.js';

const env = process.env;
const RESULT_FILE = path.join(resultsDir, 'e2e-latency.json');
const SECRET = `bench-e2e-${randomBytes(12).toString('hex')}`;

function positiveNumber(name: string, fallback: number): number {
  const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`${name} must be a positive number, not ${env[name]}`);
  return value;
}

const CHANGES = Math.floor(positiveNumber('BENCH_CHANGES', 30));
/** The stack's own variables (docs/running.md, "Distributed mode on one machine"), with short bench defaults. */
const SYNC_INTERVAL_SECONDS = positiveNumber('SYNC_INTERVAL_SECONDS', 1);
const DELIVERY_INTERVAL_SECONDS = positiveNumber('DELIVERY_INTERVAL_SECONDS', 1);
/** Give up on one change after this long (it is then reported as lost). */
const CHANGE_TIMEOUT_MS = positiveNumber('BENCH_CHANGE_TIMEOUT_SECONDS', 120) * 1000;
/** The relay's idle poll in distributed mode (not configurable there); sync wakes it after every commit. */
const RELAY_IDLE_POLL_MS = 1_000;
const TARGET_SECONDS = SYNC_INTERVAL_SECONDS + DELIVERY_INTERVAL_SECONDS + 1;

const log = (line: string) => process.stdout.write(`[bench:e2e] ${line}\n`);
/** Set while changes are being timed: a process restart then spoils the numbers. */
let measuring = false;

// ----- Ctrl-C: finish starting or measuring, then stop every process; never exit with children alive -----

const interrupt = new AbortController();
let signalsSeen = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    signalsSeen += 1;
    if (signalsSeen === 1) {
      log(`${signal}: stopping every process this bench started (a stack still starting is stopped once it is up)`);
      interrupt.abort(new Error(`interrupted by ${signal}`));
    } else {
      log(`${signal} again: still stopping the stack's processes, please wait`);
    }
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(interrupt.signal.reason as Error);
    };
    const timer = setTimeout(() => {
      interrupt.signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (interrupt.signal.aborted) onAbort();
    else interrupt.signal.addEventListener('abort', onAbort, { once: true });
  });
}

// ----- talking to the stack -----

async function api<T>(stack: RunningStack, route: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${stack.gatewayUrl}/v1/timetable${route}`, { ...init, signal: AbortSignal.timeout(30_000) });
  return { status: response.status, body: (await response.json()) as T };
}

/** A StarPlan list from the simulator: ISO-8859-1 JSON, the items wrapped as `[[...]]`. */
async function upstreamList<T>(stack: RunningStack, query: string): Promise<T[]> {
  const response = await fetch(`${stack.upstreamBaseUrl}/json?${query}`, { signal: AbortSignal.timeout(30_000) });
  const payload = JSON.parse(new TextDecoder('latin1').decode(await response.arrayBuffer())) as unknown;
  const items = Array.isArray(payload) && Array.isArray(payload[0]) ? (payload[0] as T[]) : undefined;
  if (!items) throw new Error(`the simulator answered ${query} with ${JSON.stringify(payload).slice(0, 200)}`);
  return items;
}

/**
 * The stack hands its gateway a port it picked at the start and binds it last, so on a busy machine another
 * program can hold that port meanwhile and answer the readiness probe. Only our gateway reaches our sync,
 * whose status names our simulator: wait until the gateway's URL says so.
 */
async function waitForOwnGateway(stack: RunningStack, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const baseUrl = await api<{ data?: { baseUrl?: string } }>(stack, '/sync/status').then(
      ({ status, body }) => (status === 200 ? body.data?.baseUrl : undefined),
      () => undefined,
    );
    if (baseUrl === stack.upstreamBaseUrl && stack.process('gateway').running) return;
    if (Date.now() > deadline) throw new Error(`${stack.gatewayUrl} does not answer for this stack's gateway (last: ${String(baseUrl)})\n${stack.process('gateway').tail()}`);
    await sleep(250);
  }
}

/** A lecture the simulator lists under a program (so sync mirrors it as a course). */
async function pickLecture(stack: RunningStack): Promise<{ id: number; name: string }> {
  const [unit] = await upstreamList<{ id: number }>(stack, 'm=getpus');
  if (!unit) throw new Error('the simulator lists no planning unit');
  for (const program of await upstreamList<{ id: number }>(stack, `m=getogs&pu=${unit.id}`)) {
    const groups = await upstreamList<{ lectures: { id: number; name: string }[] }>(stack, `m=getPgsExt&pu=${unit.id}&og=${program.id}`);
    const lecture = groups.flatMap((group) => group.lectures)[0];
    if (lecture) return lecture;
  }
  throw new Error('the simulator lists no lecture');
}

/** Renames the lecture in the simulator; resolves with the instant the simulator says the model changed. */
async function renameLecture(stack: RunningStack, lectureId: number, name: string): Promise<number> {
  const response = await fetch(`${stack.upstreamBaseUrl}/__admin/change`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ op: 'renameLecture', args: { lectureId, name } }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`__admin/change answered ${response.status}: ${text}`);
  const appliedAt = Date.parse((JSON.parse(text) as { appliedAt?: string }).appliedAt ?? '');
  if (Number.isNaN(appliedAt)) throw new Error(`__admin/change did not say when it applied the change: ${text}`);
  return appliedAt;
}

/** The course.updated delivery that carries this name as the course's new name. */
const deliveryOfRename = (name: string) => (delivery: ReceivedWebhook) =>
  delivery.body?.data?.entityType === 'course' && (delivery.body.data.current as { name?: unknown } | null)?.name === name;

/** When sync detected a change (the change log's createdAt, the end of the run's fetch and diff). */
async function detectedAt(stack: RunningStack, changeId: string): Promise<number | undefined> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const { status, body } = await api<{ data?: { createdAt: string } }>(stack, `/changes/${changeId}`);
    if (status === 200 && body.data) return Date.parse(body.data.createdAt);
    await sleep(250);
  }
  return undefined;
}

interface SyncRun {
  startedAt: number;
  finishedAt: number;
}

/** sync's runs since an instant, from its own database (the bench's only look behind the API). */
async function syncRunsSince(stack: RunningStack, since: number): Promise<SyncRun[]> {
  const client = new pg.Client({ connectionString: stack.databaseUrls.sync });
  await client.connect();
  try {
    const { rows } = await client.query<{ started_at: Date; finished_at: Date }>(
      'select started_at, finished_at from sync.sync_runs where started_at >= $1 order by started_at',
      [new Date(since)],
    );
    return rows.map((row) => ({ startedAt: row.started_at.getTime(), finishedAt: row.finished_at.getTime() }));
  } finally {
    await client.end();
  }
}

// ----- statistics and output -----

/** Nearest rank: with fewer than 100 samples, p99 is the maximum. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

function summary(values: number[]): { n: number; min: number; p50: number; p99: number; max: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, min: sorted[0] ?? Number.NaN, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN, mean };
}

interface ChangeMeasurement {
  index: number;
  name: string;
  /** Random pause before this change, so changes fall on every phase of the sync cycle. */
  pauseMs: number;
  appliedAt: string;
  receivedAt: string | null;
  latencyMs: number | null;
  changeId: string | null;
  webhookId: string | null;
  signatureValid: boolean;
  standardSignatureValid: boolean;
  /** Deliveries of this same change that arrived more than once (at-least-once), seen by the end of the run. */
  copies: number;
  /** sync run that detected it started, relative to appliedAt (negative: a run already under way read it). */
  runStartOffsetMs: number | null;
  /** Applied -> the change log's createdAt (end of the detecting run's fetch and diff). */
  appliedToDetectedMs: number | null;
  /** createdAt -> the delivery body's timestamp: commit, relay, Kafka, dispatcher consumer, delivery cycle, claim, sign. */
  detectedToSentMs: number | null;
  /** Body timestamp -> receipt: the POST itself. */
  sentToReceivedMs: number | null;
}

const ms = (value: number | null) => (value === null || Number.isNaN(value) ? '-' : String(Math.round(value)));
const seconds = (value: number) => (Number.isNaN(value) ? '-' : `${(value / 1000).toFixed(2)} s`);

function table(changes: ChangeMeasurement[]): string {
  const header = ['change', 'pause ms', 'latency ms', 'run start ms', 'to detected ms', 'detected->sent ms', 'sent->recv ms', 'signed'];
  const widths = header.map((cell) => cell.length);
  const rows = changes.map((change) => [
    `#${change.index}`,
    ms(change.pauseMs),
    change.latencyMs === null ? 'LOST' : ms(change.latencyMs),
    ms(change.runStartOffsetMs),
    ms(change.appliedToDetectedMs),
    ms(change.detectedToSentMs),
    ms(change.sentToReceivedMs),
    change.latencyMs === null ? '-' : change.signatureValid && change.standardSignatureValid ? 'ok' : 'BAD',
  ]);
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join('  ');
  return [line(header), '-'.repeat(widths.reduce((sum, width) => sum + width + 2, -2)), ...rows.map(line)].join('\n');
}

// ----- the run -----

interface Restart {
  process: string;
  at: string;
  duringMeasurement: boolean;
}

async function measure(stack: RunningStack, receiver: SignedWebhookReceiver, startedAt: Date, restarts: Restart[]): Promise<boolean> {
  const registered = await api<{ data?: { apiKey: string } }>(stack, '/developers/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-e2e-${Date.now()}@example.edu`, name: 'bench:e2e' }),
  });
  if (registered.status !== 201 || !registered.body.data) throw new Error(`registering a developer answered ${registered.status}`);
  const webhook = await api<{ data?: { id: string } }>(stack, '/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': registered.body.data.apiKey },
    body: JSON.stringify({ url: receiver.url, secret: SECRET }),
  });
  if (webhook.status !== 201 || !webhook.body.data) throw new Error(`creating the webhook answered ${webhook.status}: ${JSON.stringify(webhook.body)}`);
  const lecture = await pickLecture(stack);
  log(`webhook ${webhook.body.data.id} -> ${receiver.url}; renaming lecture ${lecture.id} ("${lecture.name}") ${CHANGES} times`);

  // Warm-up (not counted): the first delivery to a new host, and whatever of the first sync the dispatcher
  // was still matching when the webhook was created. Then wait until the receiver has been quiet a while.
  const tag = randomBytes(3).toString('hex');
  const warmUp = `E2E ${tag} warm-up`;
  await renameLecture(stack, lecture.id, warmUp);
  await receiver.waitFor(deliveryOfRename(warmUp), CHANGE_TIMEOUT_MS, interrupt.signal);
  const quietMs = Math.max(3_000, 2 * DELIVERY_INTERVAL_SECONDS * 1000);
  while (Date.now() - (receiver.received.at(-1)?.receivedAt ?? 0) < quietMs) await sleep(250);
  log(`warm-up delivered; ${receiver.received.length} deliveries so far, none for ${quietMs / 1000} s: measuring`);

  const measuredFrom = Date.now();
  measuring = true;
  const receivedBefore = receiver.received.length;
  const measurements: ChangeMeasurement[] = [];
  const deliveries = new Map<number, ReceivedWebhook>();
  for (let index = 1; index <= CHANGES; index += 1) {
    const pauseMs = Math.round(Math.random() * (SYNC_INTERVAL_SECONDS + 1) * 1000);
    await sleep(pauseMs);
    const name = `E2E ${tag} #${index}`;
    const appliedAt = await renameLecture(stack, lecture.id, name);
    const delivery = await receiver.waitFor(deliveryOfRename(name), CHANGE_TIMEOUT_MS, interrupt.signal).catch((error: unknown) => {
      if (interrupt.signal.aborted) throw error;
      log(`#${index}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
    if (delivery) deliveries.set(index, delivery);
    measurements.push({
      index,
      name,
      pauseMs,
      appliedAt: new Date(appliedAt).toISOString(),
      receivedAt: delivery ? new Date(delivery.receivedAt).toISOString() : null,
      latencyMs: delivery ? delivery.receivedAt - appliedAt : null,
      changeId: delivery?.body?.id ?? null,
      webhookId: delivery?.webhookId ?? null,
      signatureValid: delivery?.signatureValid ?? false,
      standardSignatureValid: delivery?.standardSignatureValid ?? false,
      copies: 0,
      runStartOffsetMs: null,
      appliedToDetectedMs: null,
      detectedToSentMs: null,
      sentToReceivedMs: null,
    });
    log(`#${index}/${CHANGES}: ${delivery ? `${delivery.receivedAt - appliedAt} ms` : 'lost'}`);
  }
  const measuredUntil = Date.now();
  measuring = false;
  const restartsWhileMeasuring = restarts.filter((restart) => restart.duringMeasurement).length;

  // A late duplicate would arrive within a couple of delivery cycles.
  await sleep(2 * DELIVERY_INTERVAL_SECONDS * 1000);
  const runs = await syncRunsSince(stack, measuredFrom - 60_000);
  for (const measurement of measurements) {
    const delivery = deliveries.get(measurement.index);
    if (!delivery?.body?.id) continue;
    const copies = receiver.received.filter((candidate) => candidate.body?.id === delivery.body?.id).length;
    measurement.copies = copies - 1;
    const appliedAt = Date.parse(measurement.appliedAt);
    const sentAt = Date.parse(delivery.body.timestamp ?? '');
    const detected = await detectedAt(stack, delivery.body.id);
    const run = detected === undefined ? undefined : runs.find((candidate) => candidate.finishedAt === detected);
    measurement.appliedToDetectedMs = detected === undefined ? null : detected - appliedAt;
    measurement.runStartOffsetMs = run ? run.startedAt - appliedAt : null;
    measurement.detectedToSentMs = detected === undefined || Number.isNaN(sentAt) ? null : sentAt - detected;
    measurement.sentToReceivedMs = Number.isNaN(sentAt) ? null : delivery.receivedAt - sentAt;
  }

  const latencies = measurements.flatMap((measurement) => (measurement.latencyMs === null ? [] : [measurement.latencyMs]));
  const latency = summary(latencies);
  const lost = measurements.filter((measurement) => measurement.latencyMs === null).length;
  const badSignatures = measurements.filter((m) => m.latencyMs !== null && !(m.signatureValid && m.standardSignatureValid)).length;
  const measuredRuns = runs.filter((run) => run.startedAt >= measuredFrom && run.startedAt <= measuredUntil);
  const runDurations = summary(measuredRuns.map((run) => run.finishedAt - run.startedAt));
  const runPeriods = summary(measuredRuns.slice(1).map((run, index) => run.startedAt - (measuredRuns[index]?.startedAt ?? run.startedAt)));
  const otherDeliveries: Record<string, number> = {};
  for (const delivery of receiver.received.slice(receivedBefore)) {
    if (measurements.some((m) => deliveryOfRename(m.name)(delivery))) continue;
    const event = delivery.body?.event ?? 'unparsable';
    otherDeliveries[event] = (otherDeliveries[event] ?? 0) + 1;
  }
  const withinTarget = latencies.filter((value) => value <= TARGET_SECONDS * 1000).length;
  const met = lost === 0 && latency.max <= TARGET_SECONDS * 1000;

  process.stdout.write(`\n${table(measurements)}\n\n`);
  const lines = [
    `latency, upstream change applied -> signed delivery received, over ${latency.n} changes: p50 ${seconds(latency.p50)}, p99 ${seconds(latency.p99)}, max ${seconds(latency.max)} (min ${seconds(latency.min)}, mean ${seconds(latency.mean)}; nearest rank, so with fewer than 100 changes p99 is the max)`,
    `stack: SYNC_INTERVAL_SECONDS=${SYNC_INTERVAL_SECONDS} (pause after each run), DELIVERY_INTERVAL_SECONDS=${DELIVERY_INTERVAL_SECONDS}; outbox relay woken on commit (idle poll ${RELAY_IDLE_POLL_MS} ms); Kafka consumers long-poll`,
    `sync runs while measuring: ${runDurations.n}, duration p50 ${seconds(runDurations.p50)} max ${seconds(runDurations.max)}; start to start p50 ${seconds(runPeriods.p50)} max ${seconds(runPeriods.max)}`,
    `lost ${lost}, bad signatures ${badSignatures}, duplicate copies ${measurements.reduce((sum, m) => sum + m.copies, 0)}, other deliveries while measuring ${JSON.stringify(otherDeliveries)}, process restarts while measuring ${restartsWhileMeasuring}`,
    `target (bench/README.md): <= sync interval + delivery interval + 1 s = ${TARGET_SECONDS} s; ${withinTarget}/${latency.n} changes within it, max ${seconds(latency.max)}: ${met ? 'met' : 'NOT met'}`,
    `Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`,
  ];
  for (const line of lines) process.stdout.write(`${line}\n`);

  await mkdir(path.dirname(RESULT_FILE), { recursive: true });
  await writeFile(
    RESULT_FILE,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        loadAverageAtEnd: os.loadavg(),
        namespace: stack.namespace,
        settings: {
          changes: CHANGES,
          syncIntervalSeconds: SYNC_INTERVAL_SECONDS,
          deliveryIntervalSeconds: DELIVERY_INTERVAL_SECONDS,
          relayIdlePollMs: RELAY_IDLE_POLL_MS,
          changeTimeoutMs: CHANGE_TIMEOUT_MS,
          pauseBeforeEachChange: `uniform 0 to ${(SYNC_INTERVAL_SECONDS + 1) * 1000} ms`,
        },
        lecture,
        latencyMs: latency,
        target: { seconds: TARGET_SECONDS, withinTarget, met },
        syncRuns: { count: runDurations.n, durationMs: runDurations, startToStartMs: runPeriods },
        lost,
        badSignatures,
        otherDeliveries,
        restarts,
        changes: measurements,
      },
      null,
      2,
    )}\n`,
  );
  log(`written ${path.relative(repoRoot, RESULT_FILE)}`);
  return lost === 0 && badSignatures === 0 && restartsWhileMeasuring === 0;
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const receiver = await startSignedWebhookReceiver(SECRET);
  const restarts: Restart[] = [];
  let stack: RunningStack | undefined;
  let pids: number[] = [];
  try {
    log(`starting the distributed stack (SYNC_INTERVAL_SECONDS=${SYNC_INTERVAL_SECONDS}, DELIVERY_INTERVAL_SECONDS=${DELIVERY_INTERVAL_SECONDS})`);
    stack = await startStack({
      namespace: `bench_e2e_${randomBytes(3).toString('hex')}`,
      ephemeral: true,
      readyTimeoutMs: 300_000,
      infrastructure: {
        ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
        ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
        ...(env.KAFKA_BROKERS ? { kafkaBrokers: env.KAFKA_BROKERS.split(',') } : {}),
        ...(env.SCHEMA_REGISTRY_URL ? { schemaRegistryUrl: env.SCHEMA_REGISTRY_URL } : {}),
      },
      env: {
        LOG_LEVEL: env.LOG_LEVEL ?? 'info',
        SYNC_INTERVAL_SECONDS: String(SYNC_INTERVAL_SECONDS),
        DELIVERY_INTERVAL_SECONDS: String(DELIVERY_INTERVAL_SECONDS),
        // The receiver is on loopback, which the dispatcher refuses unless the range is allowed.
        WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
        // The bench's own few API calls must never meet the default 10/1s tier.
        RATE_LIMITS: '1000000/1s',
      },
      onRestart: (name, exitCode, signal) => {
        restarts.push({ process: name, at: new Date().toISOString(), duringMeasurement: measuring });
        log(`WARNING: ${name} died (${signal ?? `exit ${exitCode}`}) and is being restarted${measuring ? "; this run's numbers include that" : ''}`);
      },
    });
    pids = stack.processes.flatMap((member) => (member.pid === undefined ? [] : [member.pid]));
    interrupt.signal.throwIfAborted();
    await waitForOwnGateway(stack, 120_000);
    log(`stack ${stack.namespace} ready at ${stack.gatewayUrl} (logs in ${path.relative(repoRoot, stack.logDir)})`);
    return (await measure(stack, receiver, startedAt, restarts)) ? 0 : 1;
  } catch (error) {
    if (interrupt.signal.aborted) return 130;
    const cause = error instanceof Error && error.cause !== undefined ? `\ncaused by: ${String(error.cause)}` : '';
    process.stderr.write(`bench:e2e failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}\n`);
    return 1;
  } finally {
    if (stack) {
      pids = [...new Set([...pids, ...stack.processes.flatMap((member) => (member.pid === undefined ? [] : [member.pid]))])];
      log('stopping the stack (its databases and topics are dropped)');
      await stack.stop().catch((error: unknown) => process.stderr.write(`stopping the stack failed: ${String(error)}\n`));
      const alive = pids.filter(isAlive);
      if (alive.length > 0) process.stderr.write(`processes still running after stop: ${alive.join(', ')}\n`);
      else log(`all ${pids.length} stack processes have exited`);
    }
    await receiver.close();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

process.exit(await main());
