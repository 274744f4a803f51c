import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SyncHarness } from './sync-harness.js';

/** What the proxy answers for one group feed: 304 with these headers, or the feed in full with them. */
export interface FeedAnswer {
  notModified: boolean;
  headers: Record<string, string>;
}

export interface FeedProxy {
  /** The upstream base URL to give sync. */
  url: string;
  close(): Promise<void>;
}

/**
 * The simulator behind a proxy that passes every request through and lets `answer` decide, for each group
 * feed, which validators it carries and whether to answer 304: an upstream that sends validators, which
 * StarPlan does not.
 */
export async function startFeedProxy(
  simulatorUrl: string,
  answer: (req: IncomingMessage, bytes: Uint8Array, contentType: string) => FeedAnswer,
  /** Told of every request, relative to the base URL (`json?m=getpus`, `ical?...`), as it arrives. */
  onRequest?: (request: string) => void,
): Promise<FeedProxy> {
  const proxy: Server = createServer((req, res) => {
    onRequest?.((req.url ?? '').replace(/^\/upstream\//, ''));
    void (async () => {
      const upstream = await fetch(`${simulatorUrl}${(req.url ?? '').replace(/^\/upstream/, '')}`);
      const bytes = new Uint8Array(await upstream.arrayBuffer());
      const contentType = upstream.headers.get('content-type') ?? 'application/octet-stream';
      if (!req.url?.includes('/ical?')) {
        res.writeHead(upstream.status, { 'content-type': contentType }).end(bytes);
        return;
      }
      const { notModified, headers } = answer(req, bytes, contentType);
      if (notModified) res.writeHead(304, headers).end();
      else res.writeHead(upstream.status, { 'content-type': contentType, ...headers }).end(bytes);
    })().catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/upstream`,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

/** Changes one group feed (its first occurrence not yet cancelled is cancelled), so the next sync finds one change. */
export function changeOneFeed(harness: SyncHarness): void {
  const model = harness.sim.simulator.model;
  const occurrence = [...model.groups.values()]
    .flatMap((group) => group.lectureIds)
    .flatMap((lectureId) => model.occurrencesOfLecture(model.currentPuId, lectureId))
    .find((candidate) => !candidate.cancelled);
  harness.sim.simulator.cancelOccurrence({ occurrenceId: occurrence!.id });
}
