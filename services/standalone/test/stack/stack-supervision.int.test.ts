import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StackProcess } from '../../../../scripts/stack/stack-process.js';
import { freePort } from '../../../../scripts/stack/stack-topology.js';

/**
 * `npm run stack` heals like a deployment: a process that dies unasked (SIGKILL, a crash, a consumer that
 * gave up) is started again after a backoff and the restart is logged; one that is stopped stays stopped;
 * one that dies while starting fails the start with the end of its log.
 */
const ENTRY = 'services/standalone/test/stack/fixtures/tiny-service.ts';
const logDir = mkdtempSync(path.join(tmpdir(), 'stack-supervision-'));
const members: StackProcess[] = [];

afterAll(async () => {
  await Promise.all(members.map((member) => member.stop()));
  rmSync(logDir, { recursive: true, force: true });
});

async function member(name: string, env: Record<string, string> = {}, onRestart?: ConstructorParameters<typeof StackProcess>[2]) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = new StackProcess({ name, entry: ENTRY, env: { PORT: String(port), ...env }, url, readyUrl: `${url}/ready` }, path.join(logDir, `${name}.log`), onRestart);
  members.push(process);
  return process;
}

describe('the stack supervisor', () => {
  it('restarts a process killed with SIGKILL, after a backoff, and logs the restart', async () => {
    const restarts: { name: string; signal: string | null; delayMs: number }[] = [];
    const service = await member('killed', {}, (name, _code, signal, delayMs) => restarts.push({ name, signal, delayMs }));
    service.start();
    await service.waitReady(30_000);
    const firstPid = service.pid;
    await service.kill();
    await service.waitReady(30_000);
    expect(service.pid).not.toBe(firstPid);
    expect(restarts).toEqual([{ name: 'killed', signal: 'SIGKILL', delayMs: 1_000 }]);
    expect(readFileSync(service.logFile, 'utf8')).toMatch(/process died; restarting/);
  });

  it('doubles the delay when a process keeps dying', async () => {
    const delays: number[] = [];
    const service = await member('flapping', {}, (_name, _code, _signal, delayMs) => delays.push(delayMs));
    service.start();
    await service.waitReady(30_000);
    await service.kill();
    await service.waitReady(30_000);
    await service.kill();
    await service.waitReady(30_000);
    expect(delays).toEqual([1_000, 2_000]);
  });

  it('leaves a stopped process stopped', async () => {
    const service = await member('stopped');
    service.start();
    await service.waitReady(30_000);
    expect(await service.stop()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(service.running).toBe(false);
    expect(service.restarts).toBe(0);
  });

  it('fails the start of a process that dies while starting, with its log', async () => {
    const service = await member('broken', { DIE_AT_START: '1' });
    service.start();
    await expect(service.waitReady(30_000)).rejects.toThrow(/broken exited while starting[\s\S]*tiny-service: cannot start/);
    expect(service.restarts).toBe(0);
  });
});
