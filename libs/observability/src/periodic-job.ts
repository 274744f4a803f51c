import type { Lifecycle } from './lifecycle.js';
import type { Logger } from './logger.js';

export interface PeriodicJobOptions {
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
  logger: Logger;
}

/**
 * Housekeeping that runs at start and then every interval after the previous run ended. A failed run is
 * logged and tried again next time; stop() waits for a run in flight.
 */
export class PeriodicJob implements Lifecycle {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private running = false;

  constructor(private readonly options: PeriodicJobOptions) {}

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

  isHealthy(): boolean {
    return this.running;
  }

  private tick(): void {
    this.current = this.options
      .run()
      .then(() => undefined)
      .catch((error: unknown) => this.options.logger.error({ err: error, job: this.options.name }, 'periodic job failed'))
      .finally(() => {
        if (this.running) this.timer = setTimeout(() => this.tick(), this.options.intervalMs);
      });
  }
}
