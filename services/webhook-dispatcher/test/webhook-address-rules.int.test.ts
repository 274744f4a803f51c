import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { testResources } from './support/test-resources.js';
import type { Harness } from './support/webhook-harness.js';

/**
 * The address rules on real connections: a receiver on loopback is refused by default (the attempt fails
 * with the documented errorMessage and no connection reaches it), and delivered to once its range is in
 * WEBHOOK_ALLOW_CIDRS; WEBHOOK_DENY_CIDRS wins over the allow list.
 */
const owner = randomUUID();
const resources = testResources();
afterAll(() => resources.closeAll());
const harness = (allowCidrs: string[], denyCidrs: string[] = []) => resources.harness({ allowCidrs, denyCidrs });
const receiver = () => resources.receiver();

async function deliverOnce(h: Harness, url: string): Promise<{ status: string; attempts: number; response_code: number | null; error_message: string | null }> {
  const created = await h.call(owner, 'POST', '/webhooks', { url });
  expect(created.status).toBe(201);
  await h.call(owner, 'POST', `/webhooks/${created.body.data.id}/test`);
  await h.module.dispatcher.runCycle();
  return h.knex('deliveries').where({ webhook_id: created.body.data.id }).first();
}

describe('a webhook to a loopback address with the default rules', () => {
  it.each([
    ['the IPv4 literal', (port: number) => `http://127.0.0.1:${port}/hook`, '127.0.0.1'],
    ['a decimal spelling of it', (port: number) => `http://2130706433:${port}/hook`, '127.0.0.1'],
    ['its IPv4-mapped IPv6 form', (port: number) => `http://[::ffff:127.0.0.1]:${port}/hook`, '[::ffff:7f00:1]'],
    ['a name resolving to it', (port: number) => `http://localhost:${port}/hook`, 'localhost'],
  ])('fails through %s with the documented errorMessage, and no connection is made', async (_form, urlFor, shownHost) => {
    const h = await harness([]);
    const target = await receiver();
    const row = await deliverOnce(h, urlFor(Number(new URL(target.url).port)));
    expect(row).toMatchObject({ status: 'pending', attempts: 1, response_code: null });
    expect(row.error_message).toBe(`Address not allowed: ${shownHost} is not a public address`);
    expect(target.connections).toBe(0);
    expect(target.received).toHaveLength(0);
  });
});

describe('the same address listed in WEBHOOK_ALLOW_CIDRS', () => {
  it('is delivered to, by literal and by name', async () => {
    const h = await harness(['127.0.0.0/8', '::1/128']);
    const target = await receiver();
    const port = new URL(target.url).port;
    for (const url of [target.url, `http://localhost:${port}/hook`]) {
      const row = await deliverOnce(h, url);
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, response_code: 200, error_message: null });
    }
    expect(target.received).toHaveLength(2);
  });

  it('is refused again when WEBHOOK_DENY_CIDRS names it', async () => {
    const h = await harness(['127.0.0.0/8'], ['127.0.0.1/32']);
    const target = await receiver();
    const row = await deliverOnce(h, target.url);
    expect(row.error_message).toBe('Address not allowed: 127.0.0.1 is not a public address');
    expect(target.connections).toBe(0);
  });
});
