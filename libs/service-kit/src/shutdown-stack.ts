import type { ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';

interface Release {
  what: string;
  release(): Promise<unknown>;
}

/**
 * What a runner acquired, released in the reverse order: the HTTP server before the modules that answer
 * behind it, the modules (last started first) before the stores and the bus they use. One process per
 * service and the embedded composition stop the same way.
 */
export class ShutdownStack {
  private readonly releases: Release[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /** Registers a release; it runs before every release registered earlier. */
  push(what: string, release: () => Promise<unknown>): void {
    this.releases.push({ what, release });
  }

  /**
   * Starts the modules in the order given (a consumer before the producer it reads from) and registers their
   * stops, last module first. Every stop is registered before the first start: a start that fails half-way
   * leaves the later modules unstarted, yet one may already hold something from its build (sync's simulator)
   * that only its stop releases, so each module's stop must be safe before its start.
   */
  async startModules(modules: readonly ServiceModule[]): Promise<void> {
    for (const module of modules) this.push(module.name, () => module.stop());
    for (const module of modules) await module.start();
  }

  /**
   * Runs every release, last registered first. One that fails is logged and the rest still run (a module
   * that cannot stop must not keep the pool open); the close then rejects, so a process exits non-zero.
   * Runs once: a second call waits for the first.
   */
  close(): Promise<void> {
    this.closing ??= this.releaseAll();
    return this.closing;
  }

  private async releaseAll(): Promise<void> {
    const failed: string[] = [];
    for (const { what, release } of this.releases.splice(0).reverse()) {
      try {
        await release();
      } catch (error) {
        this.logger.error({ err: error, what }, `${what} did not stop cleanly`);
        failed.push(what);
      }
    }
    if (failed.length > 0) throw new Error(`shutdown incomplete: ${failed.join(', ')} did not stop cleanly`);
  }
}
