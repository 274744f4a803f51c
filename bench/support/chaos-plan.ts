/**
 * What `npm run bench:chaos` injects and when: the fault kinds, the run's settings, and a seeded choice of
 * the next fault of each kind (a shuffled deck, so a short run still meets every kind once).
 */
import { PROCESS_DEFINITIONS, type ProcessName } from '@timetable/standalone';
import { RECORD_FAULTS, type RecordFaultName } from '@timetable/starplan-sim';

/** The processes the stack supervises and brings back; the simulator is the upstream's truth and is left alone. */
export const SERVICES: readonly ProcessName[] = PROCESS_DEFINITIONS.map((definition) => definition.name);
export const OUTAGES = ['kafka-killed', 'registry-killed', 'redis-stopped'] as const;
export const UPSTREAM_FAILURES = ['http500', 'truncate', 'garbage', 'empty', 'error'] as const;

export type Outage = (typeof OUTAGES)[number];
export type UpstreamFailure = (typeof UPSTREAM_FAILURES)[number];

/** Every kind a run injects at least once, as the report counts them. */
export const FAULT_KINDS: readonly string[] = [
  'service-sigkill',
  ...OUTAGES,
  ...UPSTREAM_FAILURES.map((failure) => `upstream-${failure}`),
  ...RECORD_FAULTS.map((fault) => `record-${fault}`),
];

export interface ChaosSettings {
  minutes: number;
  seed: number;
}

/** CHAOS_MINUTES or `--minutes N` (the argument wins), default 30; CHAOS_SEED, default the clock. */
export function chaosSettings(argv: readonly string[], env: NodeJS.ProcessEnv): ChaosSettings {
  const flag = argv.indexOf('--minutes');
  const raw = flag >= 0 ? argv[flag + 1] : env.CHAOS_MINUTES;
  const minutes = raw === undefined || raw === '' ? 30 : Number(raw);
  if (!(Number.isFinite(minutes) && minutes > 0)) throw new Error(`the soak's minutes must be a positive number, not ${raw}`);
  const seed = env.CHAOS_SEED ? Number(env.CHAOS_SEED) : Date.now() % 1_000_000;
  if (!Number.isInteger(seed)) throw new Error(`CHAOS_SEED must be an integer, not ${env.CHAOS_SEED}`);
  return { minutes, seed };
}

/** mulberry32: small, seeded, good enough to pick faults reproducibly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Draws every item once in a shuffled order, then reshuffles. */
export function deck<T>(items: readonly T[], random: () => number): () => T {
  let pile: T[] = [];
  return () => {
    if (pile.length === 0) {
      pile = [...items];
      for (let index = pile.length - 1; index > 0; index -= 1) {
        const other = Math.floor(random() * (index + 1));
        [pile[index], pile[other]] = [pile[other]!, pile[index]!];
      }
    }
    return pile.pop()!;
  };
}

export const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

/**
 * The run's rhythm for `minutes`: a service SIGKILLed every 2 minutes (faster in a short run, so it has four),
 * outages of Kafka, the registry and Redis in turn (at least one each, one every 5 minutes in a long run, up to
 * a minute long), and upstream garbage every 10 s (faster in a short run, so every record fault fits).
 */
export function rhythm(minutes: number): { killEveryMs: number; outages: number; outageEveryMs: number; outageMs: number; garbageEveryMs: number } {
  const totalMs = minutes * 60_000;
  const outages = Math.max(OUTAGES.length, Math.floor(totalMs / 300_000));
  const outageEveryMs = totalMs / outages;
  return {
    killEveryMs: Math.min(120_000, totalMs / 4),
    outages,
    outageEveryMs,
    outageMs: Math.min(60_000, outageEveryMs / 2),
    garbageEveryMs: Math.min(10_000, totalMs / (RECORD_FAULTS.length + 1)),
  };
}

/** Request kinds a record fault can be put in: events in group feeds, or items of the JSON lists. */
export function requestKindFor(fault: RecordFaultName, random: () => number): string {
  if (fault === 'huge_number' || fault === 'huge_string' || fault === 'oversized') return pick(['getros', 'getles', 'getPgsExt', 'ical'], random);
  return 'ical';
}
