import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookCounter } from '../src/index.js';

let server: Server;
let baseUrl: string;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url?.includes('broken')) res.writeHead(500).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: 3 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('HttpWebhookCounter', () => {
  it("asks the dispatcher's internal route for the developer's count", async () => {
    expect(await new HttpWebhookCounter({ webhooksUrl: baseUrl }).countFor('5f0c6f3e-1b8a-4a53-9d8e-0c4d3f2a1b7c')).toBe(3);
    expect(asked.at(-1)).toBe('/internal/developers/5f0c6f3e-1b8a-4a53-9d8e-0c4d3f2a1b7c/webhook-count');
  });

  it('fails loudly when the dispatcher answers with an error', async () => {
    await expect(new HttpWebhookCounter({ webhooksUrl: baseUrl }).countFor('broken')).rejects.toThrow(/500/);
  });
});
