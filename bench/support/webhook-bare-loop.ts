import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { deliveryHeaders } from '@timetable/webhook-dispatcher/testing';
import { mainThreadCpuSeconds } from './webhook-bench-cpu.js';
import type { Receiver } from './webhook-receivers.js';

export interface BareLoop {
  live: Receiver[];
  /** Requests to send, spread over the receivers in turn. */
  total: number;
  /** The size of each body: that of a delivery's. */
  bodySize: number;
  /** Workers sending at once: the dispatcher's concurrency. */
  concurrency: number;
}

/**
 * The bare baseline: `concurrency` workers POSTing a body of the same size to the receivers in turn, with the
 * headers a signed delivery carries (made once, so the loop does none of the dispatcher's work): the same
 * request on the wire, so the ratio is what claiming, signing and recording cost beyond the HTTP.
 */
export async function bareLoop({ live, total, bodySize, concurrency }: BareLoop): Promise<number> {
  const agent = new Agent({ connections: concurrency });
  const body = 'x'.repeat(bodySize);
  const headers = deliveryHeaders(body, new Date(), 'bench-secret-0123456789', randomUUID());
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const receiver = live[next % live.length]!;
        next += 1;
        const response = await request(receiver.url, { method: 'POST', body, dispatcher: agent, headers });
        await response.body.dump();
      }
    }),
  );
  const rate = total / ((performance.now() - started) / 1000);
  await agent.close();
  return rate;
}

export interface BareRun {
  rate: number;
  /** CPU seconds of this process (loop and receivers), and of its main thread alone. */
  cpu: number;
  mainThread: number;
}

export async function measuredBareLoop(loop: BareLoop): Promise<BareRun> {
  const cpuBefore = process.cpuUsage();
  const mainBefore = await mainThreadCpuSeconds();
  const rate = await bareLoop(loop);
  const cpu = process.cpuUsage(cpuBefore);
  return { rate, cpu: (cpu.user + cpu.system) / 1e6, mainThread: (await mainThreadCpuSeconds()) - mainBefore };
}
