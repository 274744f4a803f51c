/** One measured step of the sync bench: its time, the CPU of the sync and of the upstream, and the RSS. */
import type { SyncRunResult } from '@timetable/sync';

export interface Step {
  /** RSS when the step began, after a full garbage collection: what earlier steps left behind. */
  startRssMb: number;
  seconds: number;
  /** User + system CPU seconds of the sync process during the step (less noisy than wall time on a shared machine). */
  cpuSeconds: number;
  /** CPU seconds the simulator (the upstream, another machine in production) spent serving the step. */
  upstreamCpuSeconds: number;
  /** Highest RSS sampled every 50 ms during the step. */
  peakRssMb: number;
}

/** A step that was a sync run, with what the run reported. */
export type RunStep = Step & Pick<SyncRunResult, 'status' | 'created' | 'updated' | 'deleted' | 'feedsParsed' | 'feedsUnchanged' | 'upstreamUnchanged'>;

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Duration, CPU time and RSS of one step, which starts after a full garbage collection (--expose-gc). */
export async function measureStep<T>(work: () => Promise<T>, upstreamCpuSeconds: () => Promise<number>): Promise<{ result: T; step: Step }> {
  (globalThis as { gc?: () => void }).gc?.();
  // memoryUsage.rss() reads the RSS alone; memoryUsage() also walks the heap's spaces, which the sampler would
  // add to the CPU time of the step it watches.
  const startRssMb = mb(process.memoryUsage.rss());
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const cpu = process.cpuUsage();
  const upstreamCpuBefore = await upstreamCpuSeconds();
  const started = performance.now();
  try {
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const upstreamCpu = (await upstreamCpuSeconds()) - upstreamCpuBefore;
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, step: { startRssMb, seconds, cpuSeconds: (used.user + used.system) / 1e6, upstreamCpuSeconds: upstreamCpu, peakRssMb: mb(peak) } };
  } finally {
    clearInterval(sampler);
  }
}

export function runStep({ step, result }: { step: Step; result: SyncRunResult }): RunStep {
  const { status, created, updated, deleted, feedsParsed, feedsUnchanged, upstreamUnchanged } = result;
  return { ...step, status, created, updated, deleted, feedsParsed, feedsUnchanged, upstreamUnchanged };
}
