import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarBodyHash, jsonBodyHash } from '@timetable/sync/testing';
import { bareFetch } from '../support/bare-fetch.js';

const CALENDAR = 'BEGIN:VCALENDAR\r\nUID:1\r\nSUMMARY:ML\r\nEND:VCALENDAR\r\n';
const LIST = '[[{"id":1}]]';

// Bodies of 1 byte to 300 kB, so some arrive in several chunks; /fail answers 500.
const sizes = [1, 1_000, 70_000, 300_000, 17_040];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/fail') return void res.writeHead(500).end('no');
    if (req.url?.startsWith('/ical?')) return void res.writeHead(200, { 'content-type': 'text/calendar; charset=UTF-8' }).end(CALENDAR);
    if (req.url?.startsWith('/json?')) return void res.writeHead(200, { 'content-type': 'application/json; charset=ISO-8859-1' }).end(LIST);
    const size = sizes[Number(req.url?.slice(1))] ?? 0;
    res.writeHead(200, { 'content-length': size }).end(Buffer.alloc(size, 'x'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the bench\'s bare fetch', () => {
  it('reads every answer whole, several at a time, and counts all their bytes', async () => {
    const addresses = Array.from({ length: 50 }, (_, index) => `${base}/${index % sizes.length}`);
    const expected = addresses.reduce((sum, _, index) => sum + sizes[index % sizes.length]!, 0);
    expect(await bareFetch(addresses, 6)).toBe(expected);
  });

  it('hashes feeds and lists as the sync does when asked, reading the same bytes', async () => {
    const addresses = [`${base}/ical?pgid=1`, `${base}/json?m=getpus`];
    const hashes = new Map<string, string>();
    const bytes = await bareFetch(addresses, 2, { timeZone: 'Europe/Berlin', onHash: (address, hash) => hashes.set(address, hash) });
    expect(bytes).toBe(await bareFetch(addresses, 2));
    expect(hashes).toEqual(
      new Map([
        [addresses[0], calendarBodyHash(Buffer.from(CALENDAR), 'text/calendar; charset=UTF-8', 'Europe/Berlin')],
        [addresses[1], jsonBodyHash(Buffer.from(LIST), 'application/json; charset=ISO-8859-1')],
      ]),
    );
  });

  it('fails on an answer that is not a 200, as the sync would', async () => {
    await expect(bareFetch([`${base}/0`, `${base}/fail`], 2)).rejects.toThrow(/answered 500/);
  });
});
