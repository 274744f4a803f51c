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
  }, 20_000);
});
