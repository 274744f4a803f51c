/** Runs sync at start and then every interval after the previous run finished; stop() waits for a run in flight. */
import type { Lifecycle, Logger } from '@timetable/observability';
import type { SyncRunResult } from '../runs/sync-runner.js';

export interface SyncSchedulerDeps {
  runOnce(): Promise<SyncRunResult>;
  intervalSeconds: number;
  logger: Logger;
}

export class SyncScheduler implements Lifecycle {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private current: Promise<unknown> | undefined;

  constructor(private readonly deps: SyncSchedulerDeps) {}

  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    this.tick();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.current;
  }

  /** Healthy while scheduled; a failed run is reported by /sync/status, not by liveness. */
  isHealthy(): boolean {
    return this.running;
  }

  private tick(): void {
    this.current = this.deps
      .runOnce()
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, 'sync run crashed');
      })
      .finally(() => {
        if (this.running) this.timer = setTimeout(() => this.tick(), this.deps.intervalSeconds * 1000);
      });
  }
}
