/**
 * Two rows of the fault matrix against docker-compose.yml under podman (run by `npm run test:containers`,
 * which starts the topology and names it in CONTAINERS_*): a service's process killed, brought back by its
 * restart policy alone; and the Kafka container restarted. Each runs while the simulator's timetable keeps
 * changing, and ends with every change sync published in /changes exactly once.
 */
import { describe, expect, it } from 'vitest';
import { serviceContainer } from '../../../scripts/containers/podman.js';
import { ContainerChangeStream, killServiceProcess, waitForRestart } from './support/container-faults.js';

const project = process.env.CONTAINERS_PROJECT;
const gatewayUrl = process.env.CONTAINERS_GATEWAY_URL;
const upstreamUrl = process.env.CONTAINERS_UPSTREAM_URL;
if (!project || !gatewayUrl || !upstreamUrl) {
  throw new Error('CONTAINERS_PROJECT, CONTAINERS_GATEWAY_URL and CONTAINERS_UPSTREAM_URL name a running topology: run `npm run test:containers`');
}
const stackRef = { project, gatewayUrl, upstreamUrl };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a service container whose process is killed', () => {
  it('is restarted by its restart policy, and every change reaches /changes exactly once', async () => {
    const stream = await ContainerChangeStream.begin(stackRef);
    const before = await serviceContainer(project, 'changes');
    const churning = stream.churn(6);
    await sleep(3_000);
    await killServiceProcess(project, 'changes');
    const after = await waitForRestart(project, 'changes', before);
    await churning;
    expect(after.restartCount).toBeGreaterThan(before.restartCount);
    expect(after.health).toBe('healthy');
    await stream.expectEachChangeOnce();
  });
});

describe('the Kafka container restarted', () => {
  it('lets the outbox hold changes and the consumers resume; every change reaches /changes exactly once', async () => {
    const stream = await ContainerChangeStream.begin(stackRef);
    const before = await serviceContainer(project, 'kafka');
    const churning = stream.churn(8);
    await sleep(3_000);
    await stream.restartContainer('kafka');
    await churning;
    const after = await serviceContainer(project, 'kafka');
    expect(after.startedAt).not.toBe(before.startedAt);
    await stream.expectEachChangeOnce();
  });
});
