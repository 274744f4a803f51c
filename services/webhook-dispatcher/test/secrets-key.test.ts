import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWebhookProcessConfig } from '../src/index.js';
import { SecretCipher, parseSecretsKey } from '../src/features/secrets/secret-cipher.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const processEnv = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:1/webhooks',
  KAFKA_BROKERS: '127.0.0.1:1',
  INTERNAL_AUTH_SECRET: 'internal-secret-of-some-length',
};

describe('WEBHOOK_SECRETS_KEY in distributed mode', () => {
  it('is required, and must be 32 bytes of base64', () => {
    expect(() => loadWebhookProcessConfig(processEnv)).toThrow(/WEBHOOK_SECRETS_KEY: is required/);
    expect(() => loadWebhookProcessConfig({ ...processEnv, WEBHOOK_SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(/WEBHOOK_SECRETS_KEY: must be 32 bytes/);
    expect(() => loadWebhookProcessConfig({ ...processEnv, WEBHOOK_SECRETS_KEY: 'not base64 at all!' })).toThrow(/WEBHOOK_SECRETS_KEY/);
    const key = randomBytes(32).toString('base64');
    expect(loadWebhookProcessConfig({ ...processEnv, WEBHOOK_SECRETS_KEY: key }).WEBHOOK_SECRETS_KEY).toBe(key);
  });

  it('stops the dispatcher process before it connects anywhere, with a message naming it', () => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...processEnv };
    const result = spawnSync(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', 'services/webhook-dispatcher/src/main.ts'], {
      cwd: repoRoot, env, encoding: 'utf8', timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('WEBHOOK_SECRETS_KEY');
  }, 30_000);
});

describe('the secret cipher', () => {
  const cipher = new SecretCipher(parseSecretsKey(randomBytes(32).toString('base64')));

  it('round-trips a secret, with a fresh nonce each time', () => {
    const first = cipher.encrypt('a-secret-of-twenty-chars', 'webhook-1');
    expect(first).not.toBe(cipher.encrypt('a-secret-of-twenty-chars', 'webhook-1'));
    expect(cipher.decrypt(first, 'webhook-1')).toBe('a-secret-of-twenty-chars');
  });

  it('refuses a ciphertext moved to another webhook, altered, or read with another key', () => {
    const stored = cipher.encrypt('a-secret-of-twenty-chars', 'webhook-1');
    expect(() => cipher.decrypt(stored, 'webhook-2')).toThrow();
    const bytes = Buffer.from(stored.slice('enc:v1:'.length), 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    expect(() => cipher.decrypt(`enc:v1:${bytes.toString('base64')}`, 'webhook-1')).toThrow();
    expect(() => new SecretCipher(randomBytes(32)).decrypt(stored, 'webhook-1')).toThrow();
  });
});
