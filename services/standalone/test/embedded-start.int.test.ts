import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '../../..');

interface Started {
  child: ChildProcess;
  url: string;
  lines: Record<string, unknown>[];
}

/** Starts the embedded mode exactly as `npm start` does, and waits for its ready line. */
async function startEmbedded(dataDir: string): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--conditions=@timetable/source', '--import', 'tsx', 'services/standalone/src/main.ts'],
    { cwd: repoRoot, env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines: Record<string, unknown>[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('embedded mode not ready within 90 s')), 90_000);
    child.once('exit', (code) => reject(new Error(`embedded mode exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      lines.push(entry);
      if (entry.msg === 'timetable service ready') {
        clearTimeout(timer);
        resolve(entry.url as string);
      }
    });
  });
  return { child, url, lines };
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  return exited;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'timetable-embedded-'));
await chmod(dataDir, 0o755);
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('npm start (embedded mode)', () => {
  it('starts on embedded PostgreSQL, answers /health and the 404 envelope, and stops cleanly on SIGTERM', async () => {
    const started = await startEmbedded(dataDir);
    try {
      const health = await fetch(`${started.url}/health`);
      expect(health.status).toBe(200);
      const missing = await fetch(`${started.url}/v1/timetable/does-not-exist`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String), details: {} } });
      expect(started.lines.some((line) => line.msg === 'initialising embedded PostgreSQL')).toBe(true);
    } finally {
      expect(await stop(started)).toBe(0);
    }
  }, 180_000);

  it('reuses the data directory on a second start', async () => {
    const started = await startEmbedded(dataDir);
    try {
      expect(started.lines.some((line) => line.msg === 'initialising embedded PostgreSQL')).toBe(false);
      expect(started.lines.some((line) => line.msg === 'embedded PostgreSQL ready')).toBe(true);
    } finally {
      expect(await stop(started)).toBe(0);
    }
  }, 180_000);
});
