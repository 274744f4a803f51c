import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger, PeriodicJob } from '../src/index.js';

/** Housekeeping (retention, sync) runs at start and keeps running: a job that ran once and never again would go unnoticed. */
const logger = createLogger({ name: 'periodic-job-test', level: 'silent' });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('a periodic job', () => {
  it('runs at start, then again each interval after the previous run ended', async () => {
    let runs = 0;
    const job = new PeriodicJob({ name: 'count', intervalMs: 3_600_000, logger, run: async () => void runs++ });
    await job.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(3_599_999);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(2 * 3_600_000);
    expect(runs).toBe(4);
    await job.stop();
    await vi.advanceTimersByTimeAsync(10 * 3_600_000);
    expect(runs).toBe(4);
  });

  it('keeps its schedule after a run that failed', async () => {
    let runs = 0;
    const job = new PeriodicJob({
      name: 'flaky', intervalMs: 1_000, logger,
      run: async () => {
        runs += 1;
        if (runs === 1) throw new Error('database away');
      },
    });
    await job.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(runs).toBe(3);
    expect(job.isHealthy()).toBe(true);
    await job.stop();
  });
});
