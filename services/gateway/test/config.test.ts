import { describe, expect, it } from 'vitest';
import { ConfigError } from '@timetable/config/testing';
import { loadGatewayConfig, parseTrustProxy } from '@timetable/gateway';

const required = {
  INTERNAL_AUTH_SECRET: '0123456789abcdef0123',
  CATALOG_API_URL: 'http://catalog-api:3001',
  SYNC_URL: 'http://sync:3002',
  CHANGES_URL: 'http://changes:3003',
  WEBHOOKS_URL: 'http://webhook-dispatcher:3004',
  DEVELOPER_AUTH_URL: 'http://developer-auth:3005',
};

describe('gateway configuration', () => {
  it('defaults to the documented rate tiers, no legacy hosts, no trusted proxy, and a localhost base URL', () => {
    const config = loadGatewayConfig(required);
    expect(config.RATE_LIMITS).toEqual([
      { limit: 10, windowSeconds: 1 },
      { limit: 60, windowSeconds: 60 },
      { limit: 1000, windowSeconds: 3600 },
    ]);
    expect(config.REGISTER_LIMITS).toEqual([
      { limit: 5, windowSeconds: 60 },
      { limit: 20, windowSeconds: 86_400 },
    ]);
    expect(config.LEGACY_HOSTS).toEqual([]);
    expect(config.TRUST_PROXY).toBe(false);
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
  });

  it('reads tiers, legacy hosts (lower-cased), trust proxy, the public base URL and the time zone', () => {
    const config = loadGatewayConfig({
      ...required,
      RATE_LIMITS: '3/1s,5/1m',
      REGISTER_LIMITS: '2/1h',
      LEGACY_HOSTS: 'Old.example.edu, older.example.edu',
      TRUST_PROXY: '1',
      PUBLIC_BASE_URL: 'https://api.example.edu/',
      TIME_ZONE: 'America/New_York',
    });
    expect(config.RATE_LIMITS).toEqual([
      { limit: 3, windowSeconds: 1 },
      { limit: 5, windowSeconds: 60 },
    ]);
    expect(config.REGISTER_LIMITS).toEqual([{ limit: 2, windowSeconds: 3600 }]);
    expect(config.LEGACY_HOSTS).toEqual(['old.example.edu', 'older.example.edu']);
    expect(config.TRUST_PROXY).toBe(1);
    expect(config.publicBaseUrl).toBe('https://api.example.edu');
    expect(config.TIME_ZONE).toBe('America/New_York');
  });

  it('names every bad variable', () => {
    try {
      loadGatewayConfig({ ...required, RATE_LIMITS: 'lots', REGISTER_LIMITS: '0/1m', TRUST_PROXY: 'everyone', INTERNAL_AUTH_SECRET: 'short', SYNC_URL: 'nope', TIME_ZONE: 'Mars/Olympus' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      for (const name of ['RATE_LIMITS', 'REGISTER_LIMITS', 'TRUST_PROXY', 'INTERNAL_AUTH_SECRET', 'SYNC_URL', 'TIME_ZONE']) expect(message).toContain(name);
    }
  });
});

describe('TRUST_PROXY values (Express trust proxy semantics)', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['2', 2],
    ['loopback', 'loopback'],
    ['10.0.0.0/8, 192.168.1.1', '10.0.0.0/8,192.168.1.1'],
    ['::1', '::1'],
  ])('%s -> %s', (raw, parsed) => {
    expect(parseTrustProxy(raw)).toEqual(parsed);
  });

  it.each(['yes', '10.0.0.0/8/1', 'example.com'])('rejects %s', (raw) => {
    expect(parseTrustProxy(raw)).toBeNull();
  });
});
