import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingSyncV8Flags, SYNC_V8_FLAGS, warnOfMissingSyncV8Flags } from '../src/sync-v8-flags.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Runs a fixture under tsx in a process of its own (the flags are the whole process's) and returns its output. */
async function runFixture(nodeOptions: readonly string[], fixture: string): Promise<string> {
  const child = spawn(process.execPath, [...nodeOptions, '--conditions=@timetable/source', '--import', 'tsx', `services/sync/test/fixtures/${fixture}`], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return output;
}

const wasmTier = async (nodeOptions: readonly string[]) =>
  JSON.parse((await runFixture(['--allow-natives-syntax', ...nodeOptions], 'wasm-tier-probe.ts')).trim()) as { baseline: boolean; checksum: boolean };

/**
 * What V8's trace (--trace-gc-nvp, one line per collection) says the collections did: how many scavenges and
 * mark-compacts, and the milliseconds of their work done on helper threads (every `background.*` phase).
 */
async function collections(nodeOptions: readonly string[]): Promise<{ scavenges: number; markCompacts: number; backgroundMs: number }> {
  const trace = (await runFixture([...nodeOptions, '--trace-gc-nvp'], 'garbage-probe.ts')).split('\n');
  const count = (kind: string) => trace.filter((line) => line.includes(` gc=${kind} `)).length;
  const backgroundMs = trace.flatMap((line) => [...line.matchAll(/ background\.[\w.]+=([\d.]+)/g)]).reduce((sum, match) => sum + Number(match[1]), 0);
  return { scavenges: count('s'), markCompacts: count('mc'), backgroundMs };
}

describe("the sync process's V8 flags", () => {
  it('keep every collection on the main thread', async () => {
    const seen = await collections(SYNC_V8_FLAGS);
    expect(seen.scavenges).toBeGreaterThan(0);
    expect(seen.markCompacts).toBeGreaterThan(0);
    expect(seen.backgroundMs).toBe(0);
  }, 30_000);

  it("count as given when --single-threaded is, which keeps the collector's work on the main thread too", async () => {
    const seen = await collections(['--single-threaded']);
    expect(seen.scavenges).toBeGreaterThan(0);
    expect(seen.backgroundMs).toBe(0);
    expect(missingSyncV8Flags(['--single-threaded'])).not.toContain('--single-threaded-gc');
  }, 30_000);

  it('are a change: without them V8 collects on helper threads too', async () => {
    const seen = await collections([]);
    expect(seen.scavenges).toBeGreaterThan(0);
    expect(seen.backgroundMs).toBeGreaterThan(0);
  }, 30_000);

  it('keep a busy WebAssembly function on the baseline compiler', async () => {
    expect(await wasmTier(SYNC_V8_FLAGS)).toEqual({ baseline: true, checksum: true });
  }, 20_000);

  it('are a change: without them V8 recompiles the same function with its optimizing compiler', async () => {
    expect(await wasmTier([])).toEqual({ baseline: false, checksum: true });
  }, 30_000);

  it('are named when the process was started without some of them', () => {
    expect(missingSyncV8Flags([...SYNC_V8_FLAGS, '--max-old-space-size=384'])).toEqual([]);
    expect(missingSyncV8Flags(['--max-old-space-size=384', '--liftoff-only'])).toEqual(['--single-threaded-gc']);
    expect(missingSyncV8Flags([])).toEqual([...SYNC_V8_FLAGS]);
  });

  it('are recognised however V8 lets them be spelled, and where another flag sets them', () => {
    expect(missingSyncV8Flags(['--single_threaded_gc', '--liftoff_only'])).toEqual([]);
    expect(missingSyncV8Flags(['--single-threaded', '--liftoff-only'])).toEqual([]);
    expect(missingSyncV8Flags(['--single-threaded'])).toEqual(['--liftoff-only']);
    expect(missingSyncV8Flags(['--single-threaded-gc-ish', '--no-liftoff-only'])).toEqual([...SYNC_V8_FLAGS]);
  });

  it('are warned of at start when some are missing, and only then', () => {
    const warnings: unknown[][] = [];
    const logger = { warn: (...args: unknown[]) => void warnings.push(args) };
    warnOfMissingSyncV8Flags(logger, ['--liftoff-only']);
    expect(warnings).toEqual([[{ missingV8Flags: ['--single-threaded-gc'] }, expect.stringContaining('deploy/docker/run-service.sh')]]);
    warnOfMissingSyncV8Flags(logger, [...SYNC_V8_FLAGS]);
    expect(warnings).toHaveLength(1);
  });
});
