import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@timetable/config/testing';
import { loadSyncConfig } from '../src/config.js';
import { DEFAULT_FETCH_POLICY, fetchWithRetry } from '../src/features/read/fetch-with-retry.js';
import { StarplanClient } from '../src/features/read/starplan-client.js';
import { UpstreamError } from '../src/features/read/upstream-error.js';
import { upstreamRecordsRejected } from '../src/features/validate/metrics.js';

const LIMIT = 4096;
const JSON_TYPE = 'application/json; charset=ISO-8859-1';
let server: Server;
let baseUrl: string;
const asked: string[] = [];

/** `/announced/<n>`: n bytes with a Content-Length; `/streamed/<n>`: n bytes in chunks, without one. */
beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const [, mode, size] = /^\/(\w+)\/(\d+)/.exec(req.url ?? '') ?? [];
    const body = Buffer.from(JSON.stringify([[{ id: 1, shortname: 'A', name: 'x'.repeat(Math.max(0, Number(size) - 50)) }]]).padEnd(Number(size), ' '), 'latin1');
    if (mode === 'announced') {
      res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': body.length }).end(body);
      return;
    }
    res.writeHead(200, { 'content-type': JSON_TYPE });
    for (let offset = 0; offset < body.length; offset += 1000) res.write(body.subarray(offset, offset + 1000));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const policy = { ...DEFAULT_FETCH_POLICY, retries: 2, backoffMs: 1, maxBodyBytes: LIMIT };
const tooLarge = async () => (await upstreamRecordsRejected.get()).values.find((value) => value.labels.kind === 'answer')?.value ?? 0;
const read = (path: string) => fetchWithRetry(`${baseUrl}${path}`, policy, ({ bytes }) => bytes.length);

describe('an upstream answer is read up to UPSTREAM_MAX_BODY_BYTES', () => {
  it('reads an answer of exactly the limit', async () => {
    await expect(read(`/announced/${LIMIT}`)).resolves.toBe(LIMIT);
    await expect(read(`/streamed/${LIMIT}`)).resolves.toBe(LIMIT);
  });

  it.each(['announced', 'streamed'])('fails a larger one (%s) at once, without a retry, and counts it', async (mode) => {
    const before = await tooLarge();
    asked.length = 0;
    const failed = read(`/${mode}/${LIMIT + 1}`);
    await expect(failed).rejects.toThrow(UpstreamError);
    await expect(failed).rejects.toThrow(/answer too large.*at most 4096 are read \(UPSTREAM_MAX_BODY_BYTES\)/);
    expect(asked).toHaveLength(1);
    expect(await tooLarge()).toBe(before + 1);
  });

  it('fails a list of a program alone: the client reports the request', async () => {
    const client = new StarplanClient({ baseUrl: `${baseUrl}/streamed/100000`, timeZone: 'Europe/Berlin', policy });
    await expect(client.planningGroups(37, 35)).rejects.toThrow(/GET .*getPgsExt.*answer too large/);
  });
});

describe('UPSTREAM_MAX_BODY_BYTES', () => {
  const env = { DATABASE_URL: 'postgres://127.0.0.1/x', KAFKA_BROKERS: '127.0.0.1:9092', UPSTREAM_BASE_URL: 'http://127.0.0.1/splan' };

  it('is 32 MiB unless set', () => {
    expect(loadSyncConfig(env).UPSTREAM_MAX_BODY_BYTES).toBe(33_554_432);
    expect(loadSyncConfig({ ...env, UPSTREAM_MAX_BODY_BYTES: '1048576' }).UPSTREAM_MAX_BODY_BYTES).toBe(1_048_576);
  });

  it.each(['lots', '0', '-5', '1.5'])('stops start-up naming the variable when it is %s', (value) => {
    expect(() => loadSyncConfig({ ...env, UPSTREAM_MAX_BODY_BYTES: value })).toThrow(ConfigError);
    expect(() => loadSyncConfig({ ...env, UPSTREAM_MAX_BODY_BYTES: value })).toThrow(/UPSTREAM_MAX_BODY_BYTES/);
  });
});
