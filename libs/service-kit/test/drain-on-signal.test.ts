import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('a drain that never ends', () => {
  it('is given up at the deadline: the process logs it and exits 1 instead of hanging on', async () => {
    const child = spawn(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', 'libs/service-kit/test/fixtures/hanging-drain.ts'], {
      cwd: repoRoot,
      env: { ...process.env, DRAIN_DEADLINE_MS: '500' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"started"')) child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain('drain did not finish in time');
  }, 20_000);
});
