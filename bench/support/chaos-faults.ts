/**
 * The fault loops of `npm run bench:chaos`, each on its own timeline against a running fault system (the
 * fault matrix's distributed stack on private infrastructure): services SIGKILLed, Kafka and the registry
 * killed and restarted, Redis stopped and started, upstream answers and records garbled. Every fault is
 * counted by kind as it is injected.
 */
import { RECORD_FAULTS, type RecordFault } from '@timetable/starplan-sim';
import type { FaultSystem } from '../../services/standalone/test/faults/support/fault-system.js';
import { sleep } from '../../services/standalone/test/faults/support/eventually.js';
import { deck, OUTAGES, pick, requestKindFor, rhythm, SERVICES, UPSTREAM_FAILURES, type Outage } from './chaos-plan.js';

/** Faults injected, by kind; services killed, by name. */
export interface FaultTally {
  byKind: Record<string, number>;
  killed: Record<string, number>;
}

interface Loop {
  system: FaultSystem;
  random: () => number;
  tally: FaultTally;
  /** Wall-clock instants of the soak. */
  startedAt: number;
  endsAt: number;
}

const log = (line: string) => process.stdout.write(`[bench:chaos] ${new Date().toISOString().slice(11, 19)} ${line}\n`);
const count = (tally: FaultTally, kind: string) => (tally.byKind[kind] = (tally.byKind[kind] ?? 0) + 1);

async function until(instant: number): Promise<void> {
  if (instant > Date.now()) await sleep(instant - Date.now());
}

/** A random service SIGKILLed on every beat; the stack brings it back. */
export async function killServices(loop: Loop, minutes: number): Promise<void> {
  const { killEveryMs } = rhythm(minutes);
  const next = deck(SERVICES, loop.random);
  for (let at = loop.startedAt + killEveryMs / 2; at < loop.endsAt; at += killEveryMs) {
    await until(at);
    const service = next();
    log(`SIGKILL ${service}`);
    await loop.system.stack.kill(service);
    count(loop.tally, 'service-sigkill');
    loop.tally.killed[service] = (loop.tally.killed[service] ?? 0) + 1;
  }
}

/** Kafka, the registry and Redis down in turn, each brought back after the outage (all of them, even late). */
export async function breakInfrastructure(loop: Loop, minutes: number): Promise<void> {
  const { outages, outageEveryMs, outageMs } = rhythm(minutes);
  // Every kind once even when the soak ended early; the rest only within it.
  for (let index = 0; index < outages && (index < OUTAGES.length || Date.now() < loop.endsAt); index += 1) {
    await until(loop.startedAt + index * outageEveryMs + outageEveryMs / 4);
    const outage = OUTAGES[index % OUTAGES.length]!;
    log(`${outage} for ${Math.round(outageMs / 1000)} s`);
    await takeDown(loop.system, outage);
    count(loop.tally, outage);
    try {
      await sleep(outageMs);
    } finally {
      await bringBack(loop.system, outage);
      log(`${outage}: back`);
    }
  }
}

function takeDown(system: FaultSystem, outage: Outage): Promise<void> {
  if (outage === 'kafka-killed') return system.infra.kafka.kill();
  if (outage === 'registry-killed') return system.infra.registry.kill();
  return system.infra.redis.stop();
}

function bringBack(system: FaultSystem, outage: Outage): Promise<void> {
  if (outage === 'kafka-killed') return system.infra.kafka.start();
  if (outage === 'registry-killed') return system.infra.registry.start();
  return system.infra.redis.start();
}

/** Sizes past the sync's bounds (a feed's 50,000 events, the default 32 MiB answer), small enough for a 2-core machine. */
const HUGE_LIST_COUNT = 50_001;
const OVERSIZED_BYTES = 33 * 2 ** 20;
const JSON_KINDS = ['getros', 'getles', 'getPgsExt', 'getogs', 'getlocs'];

/** On every beat one garbled answer (a failure) and one record the mirror cannot interpret, each for a few requests. */
export async function garbleUpstream(loop: Loop, minutes: number): Promise<void> {
  const { garbageEveryMs } = rhythm(minutes);
  const nextFailure = deck(UPSTREAM_FAILURES, loop.random);
  const nextFault = deck(RECORD_FAULTS, loop.random);
  for (let at = loop.startedAt + garbageEveryMs / 2; at < loop.endsAt; at += garbageEveryMs) {
    await until(at);
    const fault = nextFault();
    const faultKind = requestKindFor(fault, loop.random);
    const record: RecordFault = { fault, ...(fault === 'huge_list' ? { count: HUGE_LIST_COUNT } : {}), ...(fault === 'oversized' ? { bytes: OVERSIZED_BYTES } : {}) };
    const heavy = fault === 'huge_list' || fault === 'oversized';
    await misbehave(loop.system, { kind: faultKind, faults: [record], times: heavy ? 1 : 4 });
    count(loop.tally, `record-${fault}`);
    const failure = nextFailure();
    const failureKind = pick(JSON_KINDS.filter((kind) => kind !== faultKind), loop.random);
    await misbehave(loop.system, { kind: failureKind, failure, times: 1 + Math.floor(loop.random() * 2) });
    count(loop.tally, `upstream-${failure}`);
    log(`upstream: ${fault} in ${faultKind}, ${failure} for ${failureKind}`);
  }
}

async function misbehave(system: FaultSystem, behaviour: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${system.stack.upstreamBaseUrl}/__admin/misbehave`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(behaviour),
  });
  if (response.status !== 204) throw new Error(`the simulator refused ${JSON.stringify(behaviour)}: ${response.status} ${await response.text()}`);
}

/** Every fault ended: the upstream behaves, every part of the infrastructure and every service answers. */
export async function healEverything(system: FaultSystem): Promise<void> {
  const cleared = await fetch(`${system.stack.upstreamBaseUrl}/__admin/misbehave`, { method: 'DELETE' });
  if (cleared.status !== 204) throw new Error(`could not clear the simulator's misbehaviour: ${cleared.status}`);
  for (const service of SERVICES) await system.stack.process(service).waitReady(180_000);
}

export type { Loop as FaultLoop };
