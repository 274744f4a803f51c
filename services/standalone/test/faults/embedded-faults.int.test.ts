import { afterAll, describe, expect, it } from 'vitest';
import { ChangeStream } from './support/change-stream.js';
import { startEmbeddedFaultSystem, type EmbeddedFaultSystem } from './support/embedded-fault-system.js';
import { sleep } from './support/eventually.js';
import { expectNothingLostOrDuplicated } from './support/expect-consistent.js';
import { startPrivateInfrastructure, type PrivateInfrastructure } from './support/private-infrastructure.js';
import { distinct, startReadProbe } from './support/read-probe.js';

/**
 * The fault matrix rows that apply to the embedded mode (`npm start`: one process, embedded PostgreSQL, the
 * in-process bus): a SIGKILL at any point, and PostgreSQL restarting under a running system.
 */
const systems: EmbeddedFaultSystem[] = [];
let infra: PrivateInfrastructure | undefined;

afterAll(async () => {
  for (const system of systems) await system.stop();
  await infra?.stop();
}, 180_000);

describe('the embedded process killed with SIGKILL mid-stream', () => {
  it('starts again on the same DATA_DIR (its orphaned PostgreSQL included) and loses or duplicates no change', async () => {
    const system = await startEmbeddedFaultSystem();
    systems.push(system);
    const stream = await ChangeStream.begin(system);
    const churning = stream.churn(4);
    await sleep(3_500);
    await system.kill();
    await sleep(1_000);
    await system.start();
    await churning;
    await expectNothingLostOrDuplicated(system, stream);
  });
});

describe('PostgreSQL restarted under the embedded system', () => {
  it('answers 503 meanwhile, never crashes, reconnects by itself and loses or duplicates nothing', async () => {
    infra = await startPrivateInfrastructure({ only: ['postgres'] });
    const system = await startEmbeddedFaultSystem({ databaseUrl: infra.postgres.url });
    systems.push(system);
    const stream = await ChangeStream.begin(system);
    const probe = startReadProbe(system.publicUrl, ['/programs', '/changes?limit=1']);
    const churning = stream.churn(5);
    await sleep(3_000);
    await infra.postgres.stop();
    await sleep(10_000);
    await infra.postgres.start();
    await churning;
    const seen = distinct(await probe.stop());
    for (const [path, statuses] of Object.entries(seen)) expect(statuses.every((status) => status === 200 || status === 503), `${path}: ${statuses.join(',')}`).toBe(true);
    expect(system.process.running).toBe(true);
    await expectNothingLostOrDuplicated(system, stream);
  });
});
