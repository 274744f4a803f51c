/**
 * `npm run bench:webhooks`: signed deliveries per second from the real dispatcher (claim, sign, POST, record in
 * PostgreSQL) to local receivers, against a bare undici POST loop with the same concurrency to the same
 * receivers in the same run; then batches with and without one more subscriber that never answers, in turn, to
 * show how much one dead subscriber slows the others. Contacts only 127.0.0.1.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { topics, type ChangeEvent } from '@timetable/contracts';
import { createKnex, migrateToLatest } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { DeveloperIdentity } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { serveModule } from '@timetable/service-kit';
import { createWebhookService, webhookMigrations, WEBHOOKS_SCHEMA } from '@timetable/webhook-dispatcher';
import { formatProfile, profileWhile, type ProfileSummary } from './support/cpu-profile.js';
import { median } from './support/median.js';
import { resultsDir } from './support/results-dir.js';
import { bareLoop, measuredBareLoop } from './support/webhook-bare-loop.js';
import { cpuSeconds, withAdmin } from './support/webhook-bench-cpu.js';
import { answerHeld, startReceiver, timeUntilDelivered, type Receiver } from './support/webhook-receivers.js';

/** A count of rounds from the environment: a whole number of at least `least`, else the run stops at once. */
function rounds(name: string, fallback: number, least: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be a whole number of at least ${least}, got ${process.env[name]}`);
  return value;
}

const CHANGES = Number(process.env.BENCH_CHANGES ?? 1_000);
const HOSTS = 8;
/** Changes dispatched (and requests of the bare loop sent) before measuring, so that both run compiled code. */
const WARM_UP_CHANGES = 250;
/** The dispatcher's default: 32 attempts in flight, at most 4 per subscriber host. */
const CONCURRENCY = 32;
/**
 * Pairs of batches, without and with the dead subscriber once the dispatcher knows it as slow: a batch takes 1
 * to 2 s, and this machine's speed varies more than the target from one batch to the next.
 */
const DEAD_ROUNDS = rounds('BENCH_DEAD_ROUNDS', 8, 0);
/** Pairs of batches with a dead host new to the dispatcher (a receiver on a port of its own each time). */
const NEW_DEAD_ROUNDS = rounds('BENCH_NEW_DEAD_ROUNDS', 5, 1);
/** Pairs of a dispatch batch and a bare loop the throughput ratio is the median of. */
const RATIO_ROUNDS = rounds('BENCH_RATIO_ROUNDS', 5, 1);
/** Longer than the second within which an answer shows the dispatcher a host answers (SLOW_AFTER_MS in host-reputation.ts). */
const HELD_AT_LEAST_MS = 1500;
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** BENCH_PROFILE=1: a CPU profile of this process (dispatcher and receivers) during a dispatch batch of its own. */
const PROFILE = process.env.BENCH_PROFILE === '1';
const PROFILE_FILE = path.join(resultsDir, 'webhook-dispatch.cpuprofile');

function change(): ChangeEvent {
  return {
    id: randomUUID(), entityType: 'course', entityId: randomUUID(), action: 'updated',
    previousData: { name: 'Mathematik 1', credits: 5 }, newData: { name: 'Mathematik 1', credits: 6 }, changedFields: ['credits'],
    programId: null, semesterId: null, courseId: null, roomId: null, instructorId: null,
    createdAt: new Date().toISOString(), syncRunId: randomUUID(),
  };
}

async function main(): Promise<void> {
  const database = `timetable_bench_webhooks_${process.pid}`;
  await withAdmin(serverUrl, (client) => client.query(`create database "${database}"`).then(() => undefined));
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const knex = createKnex({ connectionString: url.toString(), schema: WEBHOOKS_SCHEMA, poolMax: 10 });
  const logger = createLogger({ name: 'bench-webhooks', level: 'warn' });
  const live = await Promise.all(Array.from({ length: HOSTS }, () => startReceiver()));
  const dead = await startReceiver(true);
  const bus = new InProcessBus(logger);
  const identity = new DeveloperIdentity('bench-identity-secret-0123456789');
  let closeApi: (() => Promise<void>) | undefined;
  try {
    await migrateToLatest(knex, WEBHOOKS_SCHEMA, webhookMigrations);
    const module = await createWebhookService({
      knex, bus, logger, identity, secretsKey: randomBytes(32), intervalSeconds: 3600, retryDelaysSeconds: [60, 300, 900],
      timeoutMs: 30_000, breaker: { minRequests: 10, failurePercent: 70, openSeconds: 30 }, allowCidrs: ['127.0.0.0/8'], denyCidrs: [],
      hostConcurrency: 4, retentionDays: 30, maxPendingHours: 72, disableAfterDays: 5, maxWebhooksPerDeveloper: 25, concurrency: CONCURRENCY, drainTimeoutMs: 1_000,
    });
    const api = await serveModule(module, { name: 'bench-webhooks', logger });
    // Stopped before the pool is destroyed, also when the run fails: the dispatcher writes to it until it stops.
    closeApi = () => api.close();
    const subscribe = async (receiver: Receiver): Promise<{ id: string; owner: string }> => {
      const owner = randomUUID();
      const response = await fetch(`${api.url}/v1/timetable/webhooks`, {
        method: 'POST',
        headers: { ...identity.headersFor(owner), 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, secret: 'bench-secret-0123456789' }),
      });
      if (response.status !== 201) throw new Error(`webhook create answered ${response.status}: ${await response.text()}`);
      return { id: ((await response.json()) as { data: { id: string } }).data.id, owner };
    };
    const unsubscribe = async ({ id, owner }: { id: string; owner: string }): Promise<void> => {
      const response = await fetch(`${api.url}/v1/timetable/webhooks/${id}`, { method: 'DELETE', headers: identity.headersFor(owner) });
      if (response.status !== 200) throw new Error(`webhook delete answered ${response.status}: ${await response.text()}`);
    };
    for (const receiver of live) await subscribe(receiver);
    const publish = (count = CHANGES) =>
      bus.publish(Array.from({ length: count }, () => change()).map((value) => ({ topic: topics.changes.name, key: `course:${value.entityId}`, value })));

    const bodySize = JSON.stringify({ id: randomUUID(), event: 'course.updated', timestamp: new Date().toISOString(), data: change() }).length;
    // A warm-up of both first, so neither side's measurement includes compiling its code.
    await publish(WARM_UP_CHANGES);
    await timeUntilDelivered(live, WARM_UP_CHANGES, () => module.dispatcher.runCycle());
    await bareLoop({ live, total: WARM_UP_CHANGES * HOSTS, bodySize, concurrency: CONCURRENCY });

    // The throughput: pairs of a bare loop and a dispatch batch, in turn (the bare loop first in even pairs),
    // and the ratio of each pair; the median of the pairs' ratios is the result. This machine's speed varies
    // by a third from one second to the next, so a single dispatch against a single bare loop says little.
    const dispatchOnce = () => timeUntilDelivered(live, CHANGES, () => module.dispatcher.runCycle());
    const throughput: { dispatched: number; bare: number }[] = [];
    const dispatchCpu = { node: 0, mainThread: 0, postgres: 0 as number | null };
    const bareCpu = { cpu: 0, mainThread: 0 };
    let profile: ProfileSummary | undefined;
    const measuredDispatch = async (): Promise<number> => {
      await publish();
      // The pool's connections stay open across the run, so their CPU time before and after covers the dispatch.
      const before = await cpuSeconds(serverUrl, database);
      const rate = await dispatchOnce();
      const after = await cpuSeconds(serverUrl, database);
      dispatchCpu.node += after.node - before.node;
      dispatchCpu.mainThread += after.mainThread - before.mainThread;
      dispatchCpu.postgres = after.postgres === null || before.postgres === null || dispatchCpu.postgres === null ? null : dispatchCpu.postgres + after.postgres - before.postgres;
      return rate;
    };
    const measuredBare = async (): Promise<number> => {
      const run = await measuredBareLoop({ live, total: CHANGES * HOSTS, bodySize, concurrency: CONCURRENCY });
      bareCpu.cpu += run.cpu;
      bareCpu.mainThread += run.mainThread;
      return run.rate;
    };
    if (PROFILE) {
      // A batch of its own: the profiler slows what it watches, so this one counts in no figure.
      await publish();
      ({ summary: profile } = await profileWhile(PROFILE_FILE, dispatchOnce, 20));
    }
    for (let round = 0; round < RATIO_ROUNDS; round += 1) {
      if (round % 2 === 0) {
        const bare = await measuredBare();
        throughput.push({ bare, dispatched: await measuredDispatch() });
      } else {
        const dispatched = await measuredDispatch();
        throughput.push({ dispatched, bare: await measuredBare() });
      }
    }

    // The dead subscriber, in pairs of batches: one with the eight live subscribers alone, and one with a
    // webhook to a receiver that holds every request. After each batch with it that webhook is deleted (its
    // pending deliveries fail in one statement) and the held requests are answered, so a batch alone has no
    // attempt hanging. In the first pairs the dead host is new to the dispatcher, and the batch includes the
    // second it takes to count as slow; in the later pairs it is the same host, remembered as slow.
    const batchWithDead = async (deadReceiver: Receiver): Promise<number> => {
      const deadHook = await subscribe(deadReceiver);
      await publish();
      const heldSince = performance.now();
      let cycle: Promise<void> = Promise.resolve();
      const rate = await timeUntilDelivered(live, CHANGES, async () => {
        cycle = module.dispatcher.runCycle();
      });
      await unsubscribe(deadHook);
      // Answered no sooner than HELD_AT_LEAST_MS after they were sent: a quicker answer would show the
      // dispatcher that the host answers after all, and the next pair would measure a host it trusts.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, HELD_AT_LEAST_MS - (performance.now() - heldSince))));
      answerHeld(deadReceiver);
      await cycle;
      return rate;
    };
    const batchAlone = async (): Promise<number> => {
      await publish();
      return dispatchOnce();
    };
    // In turn alone first and with it first, so that what the first batch of a pair leaves the database to
    // clean up weighs on both sides alike.
    const pair = async (round: number, deadReceiver: Receiver): Promise<{ alone: number; withDead: number }> => {
      if (round % 2 === 0) {
        const alone = await batchAlone();
        return { alone, withDead: await batchWithDead(deadReceiver) };
      }
      const withDead = await batchWithDead(deadReceiver);
      return { alone: await batchAlone(), withDead };
    };
    // A dead host new to the dispatcher: a receiver on a port of its own for each of these pairs (the last
    // one is `dead`, which the later pairs then reuse).
    const newHostPairs: { alone: number; withDead: number }[] = [];
    for (let round = 0; round < NEW_DEAD_ROUNDS; round += 1) {
      const fresh = round === NEW_DEAD_ROUNDS - 1 ? dead : await startReceiver(true);
      newHostPairs.push(await pair(round, fresh));
      if (fresh !== dead) {
        fresh.server.closeAllConnections();
        fresh.server.close();
      }
    }
    const later: { alone: number; withDead: number }[] = [];
    for (let round = 0; round < DEAD_ROUNDS; round += 1) later.push(await pair(round + NEW_DEAD_ROUNDS, dead));
    await closeApi();
    closeApi = undefined;

    const slowdownPercent = (ratio: number) => (ratio <= 1 ? `${((1 - ratio) * 100).toFixed(0)} % slower` : `${((ratio - 1) * 100).toFixed(0)} % faster`);
    const slowdown = (rate: number, reference: number) => slowdownPercent(rate / reference);
    const deliveries = CHANGES * HOSTS * RATIO_ROUNDS;
    const perDelivery = (seconds: number) => `${((seconds / deliveries) * 1e6).toFixed(0)} µs`;
    const rates = (values: number[]) => `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)} to ${Math.max(...values).toFixed(0)})`;
    const percent = (ratio: number) => `${(ratio * 100).toFixed(0)} %`;
    const report = [
      `webhook dispatch, ${HOSTS} receivers on 127.0.0.1, ${CHANGES} changes each, ${CONCURRENCY} attempts in flight, ${os.cpus().length} cores`,
      `${RATIO_ROUNDS} pairs of a dispatch batch and a bare loop, in turn; medians, and in parentheses the range:`,
      `dispatcher (claim, sign, POST, record):    ${rates(throughput.map((pair) => pair.dispatched))} deliveries/s   (target >= 1,000)`,
      `bare undici POST loop, same concurrency:   ${rates(throughput.map((pair) => pair.bare))} requests/s`,
      `ratio, median of the pairs:                ${percent(median(throughput.map((pair) => pair.dispatched / pair.bare)))}   (target >= 50 %; the pairs: ${throughput.map((pair) => percent(pair.dispatched / pair.bare)).join(', ')})`,
      `CPU per delivery: this process ${perDelivery(dispatchCpu.node)} (dispatcher and receivers), PostgreSQL ${
        dispatchCpu.postgres === null ? 'unknown' : perDelivery(dispatchCpu.postgres)
      }; bare loop ${perDelivery(bareCpu.cpu)} (loop and receivers)`,
      `main thread alone (the event loop): dispatcher ${perDelivery(dispatchCpu.mainThread)} a delivery, bare loop ${perDelivery(bareCpu.mainThread)}`,
      `one more subscriber that never answers, in pairs of batches (the others alone and with it, in turn, the first pair alone first):`,
      `${`  ${NEW_DEAD_ROUNDS} pairs, the dead host new to it:`.padEnd(43)}${newHostPairs.map((entry) => slowdown(entry.withDead, entry.alone)).join(', ')}`,
      `                                           median ${slowdownPercent(median(newHostPairs.map((entry) => entry.withDead / entry.alone)))}   (target <= 10 %)`,
      later.length === 0
        ? '  no pairs with a host known slow (BENCH_DEAD_ROUNDS=0)'
        : `${`  ${DEAD_ROUNDS} pairs, the same host known slow:`.padEnd(43)}${later.map((entry) => slowdown(entry.withDead, entry.alone)).join(', ')}\n` +
          `                                           median ${slowdownPercent(median(later.map((entry) => entry.withDead / entry.alone)))}   (target <= 10 %)`,
    ];
    process.stdout.write(`${report.join('\n')}\n`);
    if (profile) process.stdout.write(`\n${formatProfile('the dispatching process (dispatcher and the 8 receivers)', profile)}\n`);
  } finally {
    await closeApi?.();
    await bus.disconnect();
    await knex.destroy();
    for (const receiver of [...live, dead]) {
      receiver.server.closeAllConnections();
      receiver.server.close();
    }
    await withAdmin(serverUrl, (client) => client.query(`drop database if exists "${database}" with (force)`).then(() => undefined));
  }
}

await main();
