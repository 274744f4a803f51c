import { describe, expect, it } from 'vitest';
import { BREAKER_IDLE_MS, EndpointBreakers, MAX_BREAKERS } from '../src/features/breaker/endpoint-breakers.js';

const settings = { minRequests: 2, failurePercent: 70, openSeconds: 30 };

function clockAt(start: number) {
  const clock = { time: start, now: () => new Date(clock.time) };
  return clock;
}

const ok = () => Promise.resolve({ ok: true });
const failing = () => Promise.resolve({ ok: false });
const failed = (result: { ok: boolean }) => !result.ok;

describe('breaker state stays bounded', () => {
  it('keeps at most MAX_BREAKERS breakers for 10,000 webhooks, and forgets idle closed ones after 10 minutes', async () => {
    const clock = clockAt(Date.parse('2025-03-03T10:00:00Z'));
    const breakers = new EndpointBreakers({ settings, now: clock.now });
    try {
      for (let index = 0; index < 10_000; index += 1) {
        await breakers.run(`webhook-${index}`, ok, failed);
        expect(breakers.size).toBeLessThanOrEqual(MAX_BREAKERS);
      }
      expect(breakers.size).toBe(MAX_BREAKERS);
      expect(breakers.states().every((state) => state === 'closed')).toBe(true);

      clock.time += BREAKER_IDLE_MS;
      await breakers.run('one-more-webhook', ok, failed);
      expect(breakers.size).toBe(1);
    } finally {
      breakers.shutdown();
    }
  });

  it('keeps a breaker used within the last 10 minutes', async () => {
    const clock = clockAt(Date.parse('2025-03-03T10:00:00Z'));
    const breakers = new EndpointBreakers({ settings, now: clock.now });
    try {
      await breakers.run('webhook-a', ok, failed);
      clock.time += BREAKER_IDLE_MS - 1;
      await breakers.run('webhook-b', ok, failed);
      expect(breakers.size).toBe(2);
    } finally {
      breakers.shutdown();
    }
  });

  it('keeps an open breaker however long it is idle, so a dead endpoint stays paused', async () => {
    const clock = clockAt(Date.parse('2025-03-03T10:00:00Z'));
    const breakers = new EndpointBreakers({ settings: { ...settings, openSeconds: 3600 }, now: clock.now });
    try {
      await breakers.run('dead-webhook', failing, failed);
      await breakers.run('dead-webhook', failing, failed);
      expect(breakers.states()).toEqual(['open']);
      clock.time += BREAKER_IDLE_MS * 3;
      await breakers.run('other-webhook', ok, failed);
      const outcome = await breakers.run('dead-webhook', ok, failed);
      expect(outcome.kind).toBe('open');
      expect(breakers.states().sort()).toEqual(['closed', 'open']);
    } finally {
      breakers.shutdown();
    }
  });
});

describe('a breaker per endpoint', () => {
  it("opens for the failing webhook only: another webhook's attempts still run", async () => {
    const clock = clockAt(Date.parse('2025-03-03T10:00:00Z'));
    const breakers = new EndpointBreakers({ settings, now: clock.now });
    try {
      await breakers.run('failing-webhook', failing, failed);
      await breakers.run('failing-webhook', failing, failed);
      expect((await breakers.run('failing-webhook', ok, failed)).kind).toBe('open');
      expect(await breakers.run('healthy-webhook', ok, failed)).toEqual({ kind: 'ran', result: { ok: true } });
      expect(breakers.states().sort()).toEqual(['closed', 'open']);
    } finally {
      breakers.shutdown();
    }
  });
});
