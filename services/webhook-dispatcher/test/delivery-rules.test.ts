import { describe, expect, it } from 'vitest';
import { readConfig } from '@timetable/config';
import { z } from 'zod';
import { webhookConfigFields, webhookSettingsFrom } from '../src/index.js';
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

describe('configuration', () => {
  const schema = z.object(webhookConfigFields);

  it('defaults to the spec and design values', () => {
    expect(webhookSettingsFrom(readConfig(schema, {}))).toEqual({
      intervalSeconds: 30,
      retryDelaysSeconds: [60, 300, 900],
      timeoutMs: 30_000,
      hostConcurrency: 4,
      retentionDays: 30,
      maxPendingHours: 72,
      disableAfterDays: 5,
      maxWebhooksPerDeveloper: 25,
      breaker: { minRequests: 10, failurePercent: 70, openSeconds: 30 },
      allowCidrs: [],
      denyCidrs: [],
    });
  });

  it('reads every variable', () => {
    const config = readConfig(schema, {
      DELIVERY_INTERVAL_SECONDS: '5', DELIVERY_RETRY_DELAYS_SECONDS: '1,2,3', DELIVERY_TIMEOUT_MS: '1000',
      BREAKER_MIN_REQUESTS: '4', BREAKER_FAILURE_PERCENT: '50', BREAKER_OPEN_SECONDS: '10', WEBHOOK_DENY_CIDRS: '203.0.113.0/24, 2001:db8::/32',
      WEBHOOK_ALLOW_CIDRS: '10.20.0.0/16,fd12:3456::/32', DELIVERY_HOST_CONCURRENCY: '2', DELIVERY_RETENTION_DAYS: '7', MAX_WEBHOOKS_PER_DEVELOPER: '3',
      DELIVERY_MAX_PENDING_HOURS: '0.5', WEBHOOK_DISABLE_AFTER_DAYS: '14',
    });
    expect(webhookSettingsFrom(config)).toEqual({
      intervalSeconds: 5, retryDelaysSeconds: [1, 2, 3], timeoutMs: 1000, hostConcurrency: 2, retentionDays: 7, maxPendingHours: 0.5, disableAfterDays: 14, maxWebhooksPerDeveloper: 3,
      breaker: { minRequests: 4, failurePercent: 50, openSeconds: 10 },
      allowCidrs: ['10.20.0.0/16', 'fd12:3456::/32'], denyCidrs: ['203.0.113.0/24', '2001:db8::/32'],
    });
  });

  it.each([
    ['DELIVERY_TIMEOUT_MS', 'soon'],
    ['DELIVERY_RETRY_DELAYS_SECONDS', '60,x'],
    ['WEBHOOK_DENY_CIDRS', '169.254.0.0'],
    ['WEBHOOK_ALLOW_CIDRS', '10.0.0.0/33'],
    ['WEBHOOK_ALLOW_CIDRS', 'intranet.example.edu'],
    ['DELIVERY_HOST_CONCURRENCY', '0'],
    ['DELIVERY_RETENTION_DAYS', 'forever'],
    ['MAX_WEBHOOKS_PER_DEVELOPER', '-1'],
    ['BREAKER_FAILURE_PERCENT', '120'],
    ['DELIVERY_MAX_PENDING_HOURS', '0'],
    ['DELIVERY_MAX_PENDING_HOURS', 'three days'],
    ['WEBHOOK_DISABLE_AFTER_DAYS', '-5'],
    ['WEBHOOK_DISABLE_AFTER_DAYS', 'never'],
  ])('stops start-up naming %s for %s', (name, value) => {
    expect(() => readConfig(schema, { [name]: value })).toThrow(name);
  });
});
