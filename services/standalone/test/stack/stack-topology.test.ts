import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSecretsKey } from '@timetable/webhook-dispatcher';
import { stackSecretsKey } from '../../../../scripts/stack/stack-secrets-key.js';
import { gatewayUpstreamEnv, PortAllocator, replicaName } from '../../../../scripts/stack/stack-topology.js';

describe('stack topology', () => {
  it('names the first replica after its service and numbers the others', () => {
    expect(replicaName('catalog-api', 1)).toBe('catalog-api');
    expect(replicaName('catalog-api', 2)).toBe('catalog-api-2');
  });

  it('points gateway n at replica n of each scalable service and at the single sync and developer-auth', () => {
    expect(gatewayUpstreamEnv(2, (name) => `http://${name}`)).toEqual({
      CATALOG_API_URL: 'http://catalog-api-2',
      SYNC_URL: 'http://sync',
      CHANGES_URL: 'http://changes-2',
      WEBHOOKS_URL: 'http://webhook-dispatcher-2',
      DEVELOPER_AUTH_URL: 'http://developer-auth',
    });
  });

  it('never hands out the same port twice, nor the port the stack was asked to serve on', async () => {
    const reserved = 3000;
    const ports = new PortAllocator([reserved]);
    const handed = await Promise.all(Array.from({ length: 200 }, () => ports.next()));
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed).not.toContain(reserved);
  });

  it('gives the webhook-dispatcher one secrets key per namespace, kept across starts, unless one is given', async () => {
    const stackDir = path.join(await mkdtemp(path.join(tmpdir(), 'stack-')), 'ns');
    try {
      const key = stackSecretsKey(stackDir, undefined);
      expect(parseSecretsKey(key)).toHaveLength(32);
      expect(stackSecretsKey(stackDir, undefined)).toBe(key);
      expect((await stat(path.join(stackDir, 'webhook-secrets.key'))).mode & 0o777).toBe(0o600);
      expect(stackSecretsKey(stackDir, 'given-by-the-caller')).toBe('given-by-the-caller');
    } finally {
      await rm(path.dirname(stackDir), { recursive: true, force: true });
    }
  });
});
