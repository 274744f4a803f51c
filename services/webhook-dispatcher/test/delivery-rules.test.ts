import { describe, expect, it } from 'vitest';
import { readConfig } from '@timetable/config';
import { z } from 'zod';
import { webhookConfigFields, webhookSettingsFrom } from '../src/index.js';
import { AddressGuard } from '../src/features/delivery/address-guard.js';
import { afterFailedAttempt, MAX_ATTEMPTS } from '../src/features/delivery/retry-schedule.js';

const failedAt = new Date('2025-03-03T10:00:00.000Z');
const plus = (seconds: number) => new Date(failedAt.getTime() + seconds * 1000);

describe('retry schedule', () => {
  it('waits 1, 5 and 15 minutes after failed attempts 1 to 3 and fails after the 4th', () => {
    const delays = [60, 300, 900];
    expect(MAX_ATTEMPTS).toBe(4);
    expect(afterFailedAttempt(1, failedAt, delays)).toEqual({ status: 'pending', nextRetryAt: plus(60) });
    expect(afterFailedAttempt(2, failedAt, delays)).toEqual({ status: 'pending', nextRetryAt: plus(300) });
    expect(afterFailedAttempt(3, failedAt, delays)).toEqual({ status: 'pending', nextRetryAt: plus(900) });
    expect(afterFailedAttempt(4, failedAt, delays)).toEqual({ status: 'failed', nextRetryAt: null });
  });

  it('reuses the last delay when fewer are configured', () => {
    expect(afterFailedAttempt(3, failedAt, [10])).toEqual({ status: 'pending', nextRetryAt: plus(10) });
  });
});

describe('address guard', () => {
  const guard = new AddressGuard(['169.254.0.0/16', 'fd00::/8']);

  it('denies addresses in the listed ranges, IPv4-mapped ones included', () => {
    expect(guard.isDenied('169.254.169.254')).toBe(true);
    expect(guard.isDenied('::ffff:169.254.169.254')).toBe(true);
    expect(guard.isDenied('fd12::1')).toBe(true);
  });

  it('allows private and loopback addresses, which are legitimate internal subscribers', () => {
    expect(guard.isDenied('10.0.0.5')).toBe(false);
    expect(guard.isDenied('127.0.0.1')).toBe(false);
    expect(guard.isDenied('::1')).toBe(false);
  });

  it('refuses literal addresses before connecting', () => {
    expect(() => guard.checkLiteral('169.254.169.254')).toThrow(/denied range/);
    expect(() => guard.checkLiteral('[fd00::1]')).toThrow(/denied range/);
    expect(() => guard.checkLiteral('receiver.internal')).not.toThrow();
  });
});

describe('configuration', () => {
  const schema = z.object(webhookConfigFields);

  it('defaults to the spec and design values', () => {
    expect(webhookSettingsFrom(readConfig(schema, {}))).toEqual({
      intervalSeconds: 30,
      retryDelaysSeconds: [60, 300, 900],
      timeoutMs: 30_000,
      breaker: { minRequests: 10, failurePercent: 70, openSeconds: 30 },
      denyCidrs: ['169.254.0.0/16'],
    });
  });

  it('reads every variable', () => {
    const config = readConfig(schema, {
      DELIVERY_INTERVAL_SECONDS: '5', DELIVERY_RETRY_DELAYS_SECONDS: '1,2,3', DELIVERY_TIMEOUT_MS: '1000',
      BREAKER_MIN_REQUESTS: '4', BREAKER_FAILURE_PERCENT: '50', BREAKER_OPEN_SECONDS: '10', WEBHOOK_DENY_CIDRS: '169.254.0.0/16, 10.0.0.0/8',
    });
    expect(webhookSettingsFrom(config)).toMatchObject({ intervalSeconds: 5, retryDelaysSeconds: [1, 2, 3], timeoutMs: 1000, denyCidrs: ['169.254.0.0/16', '10.0.0.0/8'] });
  });

  it.each([
    ['DELIVERY_TIMEOUT_MS', 'soon'],
    ['DELIVERY_RETRY_DELAYS_SECONDS', '60,x'],
    ['WEBHOOK_DENY_CIDRS', '169.254.0.0'],
    ['BREAKER_FAILURE_PERCENT', '120'],
  ])('stops start-up naming %s for %s', (name, value) => {
    expect(() => readConfig(schema, { [name]: value })).toThrow(name);
  });
});
