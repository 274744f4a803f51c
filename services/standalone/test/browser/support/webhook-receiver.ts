import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The body the receiver answers with, so the deliveries table has a response body to show. */
export const RECEIVER_ANSWER = '{"received":true}';

export interface WebhookReceiver {
  url: string;
  /** The JSON bodies received, in order. */
  received: { event: string }[];
  close(): Promise<void>;
}

/** A subscriber on 127.0.0.1 (allowed by WEBHOOK_ALLOW_CIDRS in the system under test) that answers 200. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: { event: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push(JSON.parse(body) as { event: string });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(RECEIVER_ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
