/**
 * A webhook subscriber on 127.0.0.1 for benches: answers 204 at once, notes when each request's body was
 * complete, and checks both signatures the way docs/receiving-webhooks.md ("Verifying the signature") tells subscribers to,
 * independently of the dispatcher's own code.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The replay window docs/receiving-webhooks.md gives subscribers. */
const MAX_SKEW_SECONDS = 300;

export interface ReceivedWebhook {
  /** Epoch milliseconds at which the whole body had arrived. */
  receivedAt: number;
  rawBody: string;
  body: { id?: string; timestamp?: string; event?: string; data?: Record<string, unknown> } | undefined;
  webhookId: string | undefined;
  /** `X-Webhook-Signature` (`sha256=<hex>` over `<timestamp>.<body>`) checked. */
  signatureValid: boolean;
  /** `webhook-signature` (Standard Webhooks: `v1,<base64>` over `<webhook-id>.<timestamp>.<body>`) checked. */
  standardSignatureValid: boolean;
}

export interface SignedWebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves with the first delivery (already received or still to come) that `match` accepts. */
  waitFor(match: (delivery: ReceivedWebhook) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function sameText(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function freshTimestamp(timestamp: string | undefined, now: number): timestamp is string {
  return timestamp !== undefined && /^\d+$/.test(timestamp) && Math.abs(Math.floor(now / 1000) - Number(timestamp)) <= MAX_SKEW_SECONDS;
}

export function verifyHexSignature(rawBody: string, headers: IncomingHttpHeaders, secret: string, now = Date.now()): boolean {
  const timestamp = header(headers, 'x-webhook-timestamp');
  const signature = header(headers, 'x-webhook-signature');
  if (!freshTimestamp(timestamp, now) || !signature) return false;
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
  return sameText(expected, signature);
}

export function verifyStandardSignature(rawBody: string, headers: IncomingHttpHeaders, secret: string, now = Date.now()): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !freshTimestamp(timestamp, now) || !signatures) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
  return signatures.split(' ').some((entry) => {
    const [version, signature = ''] = entry.split(',');
    return version === 'v1' && sameText(expected, signature);
  });
}

export async function startSignedWebhookReceiver(secret: string): Promise<SignedWebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<(delivery: ReceivedWebhook) => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = Date.now();
      res.writeHead(204).end();
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: ReceivedWebhook['body'];
      try {
        body = JSON.parse(rawBody) as ReceivedWebhook['body'];
      } catch {
        body = undefined;
      }
      const delivery: ReceivedWebhook = {
        receivedAt,
        rawBody,
        body,
        webhookId: header(req.headers, 'webhook-id'),
        signatureValid: verifyHexSignature(rawBody, req.headers, secret, receivedAt),
        standardSignatureValid: verifyStandardSignature(rawBody, req.headers, secret, receivedAt),
      };
      received.push(delivery);
      for (const waiter of [...waiters]) waiter(delivery);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor(match, timeoutMs, signal) {
      const already = received.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(onDelivery);
          signal?.removeEventListener('abort', onAbort);
        };
        const onDelivery = (delivery: ReceivedWebhook) => {
          if (!match(delivery)) return;
          done();
          resolve(delivery);
        };
        const onAbort = () => {
          done();
          reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no matching delivery within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(onDelivery);
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
