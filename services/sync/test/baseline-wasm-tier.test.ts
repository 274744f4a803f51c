import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Runs the probe in a process of its own (the flag is the whole process's) and returns what it printed. */
async function probe(mode: 'kept' | 'default'): Promise<{ baseline: boolean; checksum: boolean }> {
  const child = spawn(
    process.execPath,
    ['--allow-natives-syntax', '--conditions=@timetable/source', '--import', 'tsx', 'services/sync/test/fixtures/wasm-tier-probe.ts', mode],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return JSON.parse(output.trim()) as { baseline: boolean; checksum: boolean };
}

describe("the sync process's WebAssembly tier", () => {
  it('keeps a busy WebAssembly function on the baseline compiler once set', async () => {
    expect(await probe('kept')).toEqual({ baseline: true, checksum: true });
  }, 20_000);

  it('is a change: without it V8 recompiles the same function with its optimizing compiler', async () => {
    expect(await probe('default')).toEqual({ baseline: false, checksum: true });
  }, 30_000);

  it("is set by the sync's entry point before the service starts", async () => {
    // No settings at all: the service refuses to start (exit 2) right after it has loaded, which is enough here.
    const child = spawn(
      process.execPath,
      ['--conditions=@timetable/source', '--import', 'tsx', '--import', './services/sync/test/fixtures/record-v8-flags.ts', 'services/sync/src/main.ts'],
      { cwd: repoRoot, env: { PATH: process.env.PATH }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let errors = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(errors).toContain('v8 flags set: --liftoff-only');
    expect(errors.indexOf('v8 flags set: --liftoff-only')).toBeLessThan(errors.indexOf('UPSTREAM_BASE_URL'));
    expect(code).toBe(2);
  }, 30_000);
});
