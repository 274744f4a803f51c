import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receipt {
  /** The path the delivery was sent to: one path per webhook, so receipts tell webhooks apart. */
  path: string;
  changeId: string;
  event: string;
  webhookId: string | undefined;
}

export interface RecordingReceiver {
  /** The URL for a webhook labelled `label`. */
  urlFor(label: string): string;
  receipts: Receipt[];
  /** Each answer waits this long first (a slow subscriber). */
  delayMs: number;
  close(): Promise<void>;
}

/** A subscriber on 127.0.0.1 that records every delivery with its Standard Webhooks `webhook-id`. */
export async function startRecordingReceiver(): Promise<RecordingReceiver> {
  const receipts: Receipt[] = [];
  const receiver = { delayMs: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; event: string };
      const answer = () => {
        receipts.push({ path: req.url ?? '', changeId: body.id, event: body.event, webhookId: req.headers['webhook-id'] as string | undefined });
        res.writeHead(204).end();
      };
      if (receiver.delayMs > 0) setTimeout(answer, receiver.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    urlFor: (label: string) => `http://127.0.0.1:${port}/hooks/${label}`,
    receipts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
