import path from 'node:path';

/**
 * Where a bench writes its results and profiles: `bench/results` (git-ignored), or BENCH_RESULTS_DIR, which the
 * benches' smoke tests set so that a test run leaves a developer's last results alone.
 */
export const resultsDir = process.env.BENCH_RESULTS_DIR ?? path.resolve(import.meta.dirname, '..', 'results');
