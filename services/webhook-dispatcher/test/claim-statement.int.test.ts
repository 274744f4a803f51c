import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { testResources } from './support/test-resources.js';

const resources = testResources();
afterEach(() => resources.closeAll());
afterAll(() => resources.closeAll());
const { harness, receiver } = resources;

describe('the claim statement', () => {
  // The planner overestimates the claim's candidates, and compiling it took several times its own work.
  it('turns JIT compilation off inside the claim\'s transaction (set_config local to it), before the claim', async () => {
    const h = await harness();
    const target = await receiver();
    expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: target.url })).status).toBe(201);
    await h.publish({}, {});
    const store = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
    const statements: { sql: string; transaction: boolean }[] = [];
    const listen = (query: { sql: string; __knexTxId?: string }) => statements.push({ sql: query.sql, transaction: query.__knexTxId !== undefined });
    h.knex.on('query', listen);
    try {
      const now = h.clock.now();
      const claimed = await store.claimDue({ now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 10, hostLimit: 4 });
      expect(claimed).toHaveLength(2);
    } finally {
      h.knex.removeListener('query', listen);
    }
    const jitOff = statements.findIndex((statement) => statement.sql.includes("set_config('jit', 'off', true)"));
    const claim = statements.findIndex((statement) => statement.sql.includes('update deliveries set claim_token'));
    expect(jitOff).toBeGreaterThanOrEqual(0);
    expect(statements.filter((statement) => statement.sql.includes("set_config('jit'"))).toHaveLength(1);
    expect(jitOff).toBeLessThan(claim);
    expect(statements[jitOff]!.transaction && statements[claim]!.transaction).toBe(true);
  });
});
