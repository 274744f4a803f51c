import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StarplanClient, type SeenBodies } from '../src/features/read/starplan-client.js';

/**
 * A list whose answer hashes as the last one read is not decoded and validated again: the client hands back
 * the items it kept, frozen, since every later run shares them. Any other answer is read as new.
 */
const RECORDED = fileURLToPath(new URL('../../../tools/starplan-sim/fixtures/recorded', import.meta.url));
const recorded = readFileSync(`${RECORDED}/getlocs.json`, 'utf8');

let server: Server;
let baseUrl: string;
let answer = recorded;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=ISO-8859-1' }).end(Buffer.from(answer, 'latin1')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/splan`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const newClient = () => new StarplanClient({ baseUrl, timeZone: 'Europe/Berlin' });

describe('a list answered as last time', () => {
  it('gives back the items kept from the last read, frozen, and records the answer as read', async () => {
    answer = recorded;
    const client = newClient();
    const firstSeen: SeenBodies = new Map();
    const againSeen: SeenBodies = new Map();
    const first = await client.locations(firstSeen);
    const again = await client.locations(againSeen);
    expect(again).toBe(first);
    expect([...againSeen]).toEqual([...firstSeen]);
    expect(againSeen.size).toBe(1);
    expect(Object.isFrozen(again)).toBe(true);
    expect(() => {
      (again[0] as { shortname: string }).shortname = 'changed';
    }).toThrow(TypeError);
  });

  it('reads a changed answer as new, and a malformed one as the failure it is', async () => {
    answer = recorded;
    const client = newClient();
    const first = await client.locations();
    answer = recorded.replace('"AÖ"', '"AÖ-neu"');
    const changed = await client.locations();
    expect(changed).not.toBe(first);
    expect(changed.find((location) => location.id === 6)?.shortname).toBe('AÖ-neu');
    answer = recorded.replace(/"id":\s*6\b/, '"id":"sechs"');
    expect(answer).not.toBe(recorded);
    await expect(client.locations()).rejects.toThrow(/getlocs: location \(no readable id\) refused \(malformed/);
    answer = recorded;
    expect((await client.locations()).find((location) => location.id === 6)?.shortname).toBe('AÖ');
  });

  it('is forgotten once a run has read its lists without it, and kept while runs read it', async () => {
    answer = recorded;
    const client = newClient();
    const seen: SeenBodies = new Map();
    const first = await client.locations(seen);
    client.keepListsRead(seen);
    expect(await client.locations()).toBe(first);
    client.keepListsRead(new Map([['json?m=getpus', 'another list']]));
    const decodedAgain = await client.locations();
    expect(decodedAgain).not.toBe(first);
    expect(decodedAgain).toEqual(first);
  });

  it('is kept per client: another client decodes for itself', async () => {
    answer = recorded;
    const first = await newClient().locations();
    const other = await newClient().locations();
    expect(other).not.toBe(first);
    expect(other).toEqual(first);
  });
});
