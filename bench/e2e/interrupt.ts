/**
 * Ctrl-C for bench:e2e: finish starting or measuring, then stop every process; never exit with children alive.
 * The first SIGINT, SIGTERM or SIGHUP aborts `interrupt`; every wait of the bench ends on it.
 */
import { log } from './settings.js';

export const interrupt = new AbortController();
let signalsSeen = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    signalsSeen += 1;
    if (signalsSeen === 1) {
      log(`${signal}: stopping every process this bench started (a stack still starting is stopped once it is up)`);
      interrupt.abort(new Error(`interrupted by ${signal}`));
    } else {
      log(`${signal} again: still stopping the stack's processes, please wait`);
    }
  });
}

/** Waits `ms`, or rejects with the interruption's reason as soon as the bench is interrupted. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(interrupt.signal.reason as Error);
    };
    const timer = setTimeout(() => {
      interrupt.signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (interrupt.signal.aborted) onAbort();
    else interrupt.signal.addEventListener('abort', onAbort, { once: true });
  });
}
