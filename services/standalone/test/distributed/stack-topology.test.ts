import { describe, expect, it } from 'vitest';
import { gatewayUpstreamEnv, replicaName } from '../../../../scripts/stack/stack-topology.js';

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
});
