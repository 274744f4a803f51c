/**
 * The V8 flags the sync's process starts with, wherever it runs as a service of its own: the image's entrypoint
 * (deploy/docker/run-service.sh), `npm run stack` and `npm run start:sync` pass them on node's command line,
 * because NODE_OPTIONS refuses both and the collector's cannot be changed once the heap exists (V8 aborts). Both
 * keep V8's helper threads from competing with the run for the node's cores; on two cores, which the upstream
 * and PostgreSQL share, that competition cost a restarted sync's first run more time than the work it did.
 *
 * - `--single-threaded-gc`: the collector works on the main thread only. Its parallel and concurrent phases
 *   spent about 0.1 s of helper-thread CPU in a first run of 0.5 s; with the flag that run took 17 % less time
 *   and a first sync no more (docs/bench-history/sync.md, "The collector on the main thread").
 * - `--liftoff-only`: WebAssembly stays on the baseline compiler. The only WebAssembly the sync runs is undici's
 *   HTTP parser, compiled anew in every process, whose optimizing recompile cost a first run about 0.3 s of CPU
 *   and never won it back: the parser only reads each answer's status line and headers (docs/bench-history/sync.md,
 *   "The HTTP parser's optimizing compile").
 *
 * The standalone mode's single process, which also serves the API, runs with V8's defaults.
 */
import type { Logger } from '@timetable/observability';

export const SYNC_V8_FLAGS: readonly string[] = ['--single-threaded-gc', '--liftoff-only'];

/** Flags that set one of SYNC_V8_FLAGS too: `--single-threaded` keeps every V8 task off helper threads, the collector's included. */
const IMPLIED_BY: Readonly<Record<string, readonly string[]>> = { '--single-threaded-gc': ['--single-threaded'] };

/** V8 reads `_` and `-` in a flag's name alike: `--single_threaded_gc` is `--single-threaded-gc`. */
function normalised(flag: string): string {
  const [name = '', ...value] = flag.split('=');
  return [name.replaceAll('_', '-'), ...value].join('=');
}

/** The flags of SYNC_V8_FLAGS this process was not started with (node's own options are in process.execArgv). */
export function missingSyncV8Flags(execArgv: readonly string[] = process.execArgv): string[] {
  const given = new Set(execArgv.map(normalised));
  return SYNC_V8_FLAGS.filter((flag) => !given.has(flag) && !(IMPLIED_BY[flag] ?? []).some((other) => given.has(other)));
}

/**
 * Warns when the process was started without some of the flags. The sync runs without them, only slower on a busy
 * node, so it is worth an operator's look and not a refusal to start.
 */
export function warnOfMissingSyncV8Flags(logger: Pick<Logger, 'warn'>, execArgv: readonly string[] = process.execArgv): void {
  const missing = missingSyncV8Flags(execArgv);
  if (missing.length === 0) return;
  logger.warn({ missingV8Flags: missing }, 'the sync was started without the V8 flags it is measured with: pass them to node, as deploy/docker/run-service.sh does');
}
