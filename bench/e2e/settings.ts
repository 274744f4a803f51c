/**
 * What bench:e2e runs with: the stack's own interval variables with short bench defaults, the bench's own
 * variables, the webhook secret, the result file and the log line every part writes.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { resultsDir } from '../support/results-dir.js';

const env = process.env;
export const RESULT_FILE = path.join(resultsDir, 'e2e-latency.json');
export const SECRET = `bench-e2e-${randomBytes(12).toString('hex')}`;

function positiveNumber(name: string, fallback: number): number {
  const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`${name} must be a positive number, not ${env[name]}`);
  return value;
}

export const CHANGES = Math.floor(positiveNumber('BENCH_CHANGES', 30));
/** The stack's own variables (docs/running.md, "Distributed mode on one machine"), with short bench defaults. */
export const SYNC_INTERVAL_SECONDS = positiveNumber('SYNC_INTERVAL_SECONDS', 1);
export const DELIVERY_INTERVAL_SECONDS = positiveNumber('DELIVERY_INTERVAL_SECONDS', 1);
/** Give up on one change after this long (it is then reported as lost). */
export const CHANGE_TIMEOUT_MS = positiveNumber('BENCH_CHANGE_TIMEOUT_SECONDS', 120) * 1000;
/** The relay's idle poll in distributed mode (not configurable there); sync wakes it after every commit. */
export const RELAY_IDLE_POLL_MS = 1_000;
export const TARGET_SECONDS = SYNC_INTERVAL_SECONDS + DELIVERY_INTERVAL_SECONDS + 1;

export const log = (line: string) => process.stdout.write(`[bench:e2e] ${line}\n`);
