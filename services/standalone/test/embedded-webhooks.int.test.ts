import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadStandaloneConfig, startEmbeddedSystem, type RunningSystem } from '@timetable/standalone';
import { captureLogger, createTestDatabase, type TestDatabase } from '@timetable/testing';
import { verifyWebhookSignature } from '@timetable/webhook-dispatcher';
import { ApiClient } from './api/support/api-client.js';

/**
 * The webhook rules in the embedded mode: a loopback subscriber is refused by default, delivered to once
 * WEBHOOK_ALLOW_CIDRS lists it; the secrets key is generated under DATA_DIR, the stored secret is
 * ciphertext, signing works after a restart; and the public /metrics names no subscriber host.
 */
const SECRET = 'embedded-mode-webhook-secret';
let database: TestDatabase;
let dataDir: string;
let receiver: { url: string; connections: number; requests: { rawBody: string; headers: IncomingHttpHeaders }[]; close(): Promise<void> };

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'timetable-webhooks-'));
  const requests: { rawBody: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ rawBody: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  const state = { connections: 0 };
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    get connections() {
      return state.connections;
    },
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
});

afterAll(async () => {
  await receiver?.close();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

async function withSystem<T>(env: Record<string, string>, work: (client: ApiClient, system: RunningSystem) => Promise<T>): Promise<T> {
  const config = loadStandaloneConfig({
    PORT: '0', DATABASE_URL: database.connectionString, DATA_DIR: dataDir, SYNC_INTERVAL_SECONDS: '86400',
    DELIVERY_INTERVAL_SECONDS: '0.2', LOG_LEVEL: 'fatal', ...env,
  });
  const system = await startEmbeddedSystem(config, captureLogger('fatal').logger);
  try {
    return await work(new ApiClient(system.url), system);
  } finally {
    await system.stop();
  }
}

async function attemptedDelivery(client: ApiClient, apiKey: string, webhookId: string): Promise<{ status: string; errorMessage: string | null }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await client.get(`/webhooks/${webhookId}/deliveries`, { apiKey });
    const [delivery] = page.body.data as { status: string; attempts: number; errorMessage: string | null }[];
    if (delivery && delivery.attempts > 0) return delivery;
    if (Date.now() > deadline) throw new Error('no delivery attempt within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let apiKey = '';
let webhookId = '';

describe('webhooks in the embedded mode', () => {
  it('refuses a loopback subscriber by default: the documented errorMessage, and no connection', async () => {
    await withSystem({}, async (client) => {
      apiKey = (await client.registerDeveloper()).apiKey;
      const created = await client.post('/webhooks', { apiKey, json: { url: receiver.url, secret: SECRET } });
      expect(created.status).toBe(201);
      webhookId = created.body.data.id as string;
      expect((await client.post(`/webhooks/${webhookId}/test`, { apiKey })).status).toBe(204);
      const delivery = await attemptedDelivery(client, apiKey, webhookId);
      expect(delivery).toMatchObject({ status: 'pending', errorMessage: 'Address not allowed: 127.0.0.1 is not a public address' });
      expect(receiver.connections).toBe(0);
    });
  });

  it('keeps a generated key under DATA_DIR and only ciphertext in the database', async () => {
    const keyFile = path.join(dataDir, 'webhook-secrets.key');
    expect(Buffer.from((await readFile(keyFile, 'utf8')).trim(), 'base64')).toHaveLength(32);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const client = new pg.Client({ connectionString: database.connectionString });
    await client.connect();
    try {
      const { rows } = await client.query<{ secret: string }>('select secret from webhooks.webhooks where id = $1', [webhookId]);
      expect(rows[0]?.secret).toMatch(/^enc:v1:/);
      expect(rows[0]?.secret).not.toContain(SECRET);
    } finally {
      await client.end();
    }
  });

  it('delivers to the same subscriber, signed, after a restart with WEBHOOK_ALLOW_CIDRS listing loopback; /metrics names no host', async () => {
    await withSystem({ WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' }, async (client, system) => {
      expect((await client.post(`/webhooks/${webhookId}/test`, { apiKey })).status).toBe(204);
      const deadline = Date.now() + 20_000;
      while (receiver.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const [request] = receiver.requests;
      expect(request).toBeDefined();
      const timestamp = String(request!.headers['x-webhook-timestamp']);
      expect(verifyWebhookSignature(request!.rawBody, { timestamp, signature: String(request!.headers['x-webhook-signature']) }, SECRET)).toBe(true);
      expect(request!.headers['webhook-signature']).toMatch(/^v1,/);
      const metrics = await (await fetch(`${system.url}/metrics`)).text();
      expect(metrics).toMatch(/^webhook_breakers\{state="closed"\} 1$/m);
      expect(metrics).not.toContain(new URL(receiver.url).host);
    });
  });
});
