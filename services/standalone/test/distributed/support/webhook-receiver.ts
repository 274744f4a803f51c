import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  body: { id: string; event: string; data: Record<string, unknown> };
  rawBody: string;
  headers: Record<string, string | undefined>;
}

export interface WebhookReceiver {
  url: string;
  deliveries: ReceivedDelivery[];
  close(): Promise<void>;
}

/** A subscriber on 127.0.0.1 that keeps every delivery with its raw body, for signature checks. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      deliveries.push({
        body: JSON.parse(rawBody) as ReceivedDelivery['body'],
        rawBody,
        headers: { timestamp: req.headers['x-webhook-timestamp'] as string | undefined, signature: req.headers['x-webhook-signature'] as string | undefined },
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
