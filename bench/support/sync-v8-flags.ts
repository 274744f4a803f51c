/**
 * The V8 flags the bench's sync processes start with (a scale's, and those started afresh, which inherit them):
 * the sync's own, as the image's entrypoint passes them (SYNC_V8_FLAGS), unless BENCH_SYNC_V8_FLAGS lists others
 * (space-separated; set and empty: V8's defaults), to measure what they change. The loops in those processes run
 * under them too.
 */
import { entrypointV8Flags } from '../../scripts/stack/deployed-node-options.js';

const asked = process.env.BENCH_SYNC_V8_FLAGS;
const asDeployed = entrypointV8Flags('sync');

export const SYNC_PROCESS_V8_FLAGS: readonly string[] = asked === undefined ? asDeployed : asked.split(/\s+/).filter(Boolean);

/** One line for the bench's output: which flags, and whether they are the sync's own. */
export function syncV8FlagsLine(): string {
  const listed = (flags: readonly string[]) => flags.join(' ') || 'none (V8\'s defaults)';
  return asked === undefined
    ? `sync processes' V8 flags, as the image's entrypoint passes them: ${listed(asDeployed)} (BENCH_SYNC_V8_FLAGS to change them)`
    : `sync processes' V8 flags: ${listed(SYNC_PROCESS_V8_FLAGS)} (BENCH_SYNC_V8_FLAGS), not the sync's own ${listed(asDeployed)}`;
}
