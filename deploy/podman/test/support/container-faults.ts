import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { waitFor } from '../../../../scripts/containers/compose-stack.js';
import { podman, psql, serviceContainer, type ContainerState } from '../../../../scripts/containers/podman.js';

/** The running topology: its compose project, the gateway's and the simulator's published URLs. */
export interface StackRef {
  project: string;
  gatewayUrl: string;
  /** StarPlan base of the simulator (`<url>/__admin/churn` changes its timetable). */
  upstreamUrl: string;
}

/** /changes answers at most 500 records; a stream stays well below. */
const PAGE = 500;

/**
 * Upstream changes made while a fault is injected and healed. Everything sync detects in a run that started
 * at or after `since` belongs to the stream (as in the fault matrix of services/standalone/test/faults).
 */
export class ContainerChangeStream {
  private static seed = 5_000;
  private lastChurnAt = new Date();

  private constructor(
    private readonly stack: StackRef,
    readonly since: Date,
  ) {}

  /** Starts once a sync run began after now: no change of the stream can land in an earlier run. */
  static async begin(stack: StackRef): Promise<ContainerChangeStream> {
    const since = new Date();
    await waitFor('a sync run after the stream began', 120_000, async () => (await syncCount(stack, `select count(*) from sync.sync_runs where started_at >= '${since.toISOString()}'`)) > 0);
    return new ContainerChangeStream(stack, since);
  }

  /** `count` churns of three changes, `everyMs` apart; a churn request that fails is tried again. */
  async churn(count: number, everyMs = 2_500): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      ContainerChangeStream.seed += 1;
      const body = JSON.stringify({ seed: ContainerChangeStream.seed, count: 3 });
      await waitFor('a churn', 60_000, async () => {
        const response = await fetch(`${this.stack.upstreamUrl}/__admin/churn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        return response.ok;
      });
      this.lastChurnAt = new Date();
      if (index < count - 1) await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  /** `podman restart` (stop, then start) of a service's container, then waits for it to be healthy again. */
  async restartContainer(service: string): Promise<void> {
    const container = await serviceContainer(this.stack.project, service);
    await podman(['restart', '--time', '10', container.name], { timeoutMs: 180_000 });
    await waitFor(`${service} healthy after its restart`, 300_000, async () => (await serviceContainer(this.stack.project, service)).health === 'healthy');
  }

  /**
   * What sync published for the stream (once a run that started after the last churn finished and its outbox
   * is empty) is in /changes, each change exactly once, also a few seconds later.
   */
  async expectEachChangeOnce(): Promise<void> {
    const published = await waitFor('sync to publish the stream', 300_000, async () => {
      const after = await syncCount(this.stack, `select count(*) from sync.sync_runs where started_at > '${this.lastChurnAt.toISOString()}' and finished_at is not null`);
      const backlog = await syncCount(this.stack, 'select count(*) from sync.outbox');
      if (after === 0 || backlog > 0) return undefined;
      return syncCount(
        this.stack,
        `select coalesce(sum(created_count + updated_count + deleted_count), 0) from sync.sync_runs where started_at >= '${this.since.toISOString()}'`,
      );
    });
    expect(published, 'changes in the stream').toBeGreaterThan(0);
    expect(published, 'changes in the stream').toBeLessThan(PAGE);
    await waitFor('the change log to hold the stream', 300_000, async () => (await this.changeIds()).length >= published);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const ids = await this.changeIds();
    expect(ids).toHaveLength(published);
    expect(new Set(ids).size).toBe(published);
  }

  private async changeIds(): Promise<string[]> {
    const response = await fetch(`${this.stack.gatewayUrl}/v1/timetable/changes?since=${encodeURIComponent(this.since.toISOString())}&limit=${PAGE}`);
    if (response.status !== 200) throw new Error(`/changes answered ${response.status}`);
    return ((await response.json()) as { data: { id: string }[] }).data.map((change) => change.id);
  }
}

async function syncCount(stack: StackRef, sql: string): Promise<number> {
  const [[value] = []] = await psql(stack.project, 'sync', sql);
  return Number(value);
}

/**
 * SIGKILLs the service's own process from the host, as a crash would end it: the child of the container's
 * init (compose's `init: true`), so the container exits and only its restart policy can bring it back.
 */
export async function killServiceProcess(project: string, service: string): Promise<void> {
  const container = await serviceContainer(project, service);
  const children = readFileSync(`/proc/${container.pid}/task/${container.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  expect(children, `the process under ${service}'s init`).toHaveLength(1);
  process.kill(Number(children[0]), 'SIGKILL');
}

/** The service's container running again after `before`, restarted by podman, and healthy. */
export function waitForRestart(project: string, service: string, before: ContainerState): Promise<ContainerState> {
  return waitFor(`${service} restarted by its restart policy and healthy`, 300_000, async () => {
    const container = await serviceContainer(project, service);
    const restarted = container.restartCount > before.restartCount && container.status === 'running' && container.health === 'healthy';
    return restarted ? container : undefined;
  });
}
