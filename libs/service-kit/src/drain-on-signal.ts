import type { Logger } from '@timetable/observability';

export interface Stoppable {
  stop(): Promise<void>;
}

export interface DrainOnSignalOptions {
  name: string;
  logger: Logger;
  /** Starts the process's work; what it resolves to is stopped on SIGINT/SIGTERM. */
  starting: Promise<Stoppable>;
  /** Releases what a start that failed half-way had acquired. */
  cleanUpFailedStart?: () => Promise<void>;
  /** A drain still running after this long is given up and the process exits 1 (default 25 s). */
  drainDeadlineMs?: number;
}

/**
 * Below Kubernetes' default grace of 30 s: a drain that hangs (a broker that never answers a disconnect) must
 * not keep a process that gave up alive forever, nor be cut off by SIGKILL without a word in the log.
 */
const DEFAULT_DRAIN_DEADLINE_MS = 25_000;

export interface ProcessExit {
  /** Something the process needs is dead for good (a consumer gave up): drain, then exit 1 to be restarted. */
  fail(error: unknown): void;
}

/**
 * The life of every process entry point: SIGINT/SIGTERM drain and exit 0 (a signal during start-up waits
 * for the start, then drains), a failed start cleans up and exits 1, and so does `fail`. Handlers are
 * installed at once, so no signal ever meets Node's default of dying mid-write.
 */
export function drainOnSignal(options: DrainOnSignalOptions): ProcessExit {
  const { logger, starting } = options;
  const cleanUp = options.cleanUpFailedStart ?? (() => Promise.resolve());
  let stopping = false;
  const exitAfter = (work: Promise<void>, code: number) =>
    work.then(
      () => process.exit(code),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  const shutDown = (code: number) => {
    if (stopping) return;
    stopping = true;
    const deadlineMs = options.drainDeadlineMs ?? DEFAULT_DRAIN_DEADLINE_MS;
    setTimeout(() => {
      logger.error({ deadlineMs }, 'drain did not finish in time; exiting without it');
      process.exit(1);
    }, deadlineMs).unref();
    void exitAfter(starting.then((started) => started.stop(), cleanUp), code);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) logger.info({ signal }, 'shutting down');
    shutDown(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  starting.catch((error: unknown) => {
    if (stopping) return;
    stopping = true;
    logger.fatal({ err: error }, `${options.name} failed to start`);
    void exitAfter(cleanUp(), 1);
  });
  return {
    fail(error) {
      if (!stopping) logger.fatal({ err: error }, `${options.name} cannot go on; draining and exiting so it is restarted`);
      shutDown(1);
    },
  };
}
