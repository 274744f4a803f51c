import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeText, unwrapStarplanJson } from '../src/features/read/decode-body.js';
import { selectPlanningUnit } from '../src/features/read/select-planning-unit.js';
import { StarplanClient } from '../src/features/read/starplan-client.js';
import { UpstreamError } from '../src/features/read/upstream-error.js';

const RECORDED = fileURLToPath(new URL('../../../tools/starplan-sim/fixtures/recorded', import.meta.url));
const LATIN1_JSON = 'application/json; charset=ISO-8859-1';
/** The recordings are stored as UTF-8 text; StarPlan sends them as ISO-8859-1 bytes. */
const asSent = (file: string) => Buffer.from(readFileSync(`${RECORDED}/${file}`, 'utf8'), 'latin1');

describe('decoding by the charset of Content-Type', () => {
  it('reads ISO-8859-1 bytes as ISO-8859-1 (umlauts intact)', () => {
    const text = decodeText(asSent('getlocs.json'), LATIN1_JSON);
    const names = (unwrapStarplanJson(text) as { shortname: string; name: string }[]).map((location) => location.shortname);
    expect(names).toContain('AÖ');
    expect(names).toContain('MÜ');
  });

  it('reads UTF-8 when the header says so or names no charset', () => {
    expect(decodeText(Buffer.from('Prüfung', 'utf8'), 'text/calendar; charset=UTF-8')).toBe('Prüfung');
    expect(decodeText(Buffer.from('Prüfung', 'utf8'), null)).toBe('Prüfung');
  });

  it('replaces broken UTF-8 sequences with U+FFFD, so one damaged byte cannot stop a run', () => {
    expect(decodeText(Buffer.from([0x50, 0xfc, 0x66]), 'text/calendar; charset=utf-8')).toBe('P\ufffdf');
  });

  it('refuses a charset it does not know, as a failure of that request', () => {
    expect(() => decodeText(Buffer.from('x'), 'text/plain; charset=x-unheard-of')).toThrow(UpstreamError);
  });
});

describe('control characters and lone surrogates (PostgreSQL jsonb refuses NUL and lone surrogates)', () => {
  it('removes raw control characters but keeps tab, line feed and carriage return', () => {
    expect(decodeText(Buffer.from('A\u0000B\u0007C\u001bD\u007fE\tF\r\nG', 'latin1'), LATIN1_JSON)).toBe('ABCDE\tF\r\nG');
    expect(decodeText(Buffer.from('Mathe\u0000matik', 'utf8'), 'text/calendar; charset=utf-8')).toBe('Mathematik');
  });

  it('keeps what ISO-8859-1 makes of Windows-1252 punctuation (C1), and every printable Latin-1 letter', () => {
    expect(decodeText(Buffer.from([0x84, 0x41, 0x93, 0xe4, 0xdf]), LATIN1_JSON)).toBe('\u0084A\u0093äß');
  });

  it('cleans JSON escapes after parsing: \\u0000 is removed, a lone \\ud800 or \\udc00 becomes U+FFFD, pairs stay', () => {
    // An escaped pair (what a latin1 transport can carry of 😀) is a character, not two lone surrogates.
    const text = JSON.stringify([[{ name: 'Ana\u0000lysis \ud800 1', shortname: 'x\udc00y', id: 7 }]]).replace('"id"', '"emoji":"a\\ud83d\\ude00b","id"');
    expect(text).toContain('\\u0000');
    expect(text).toContain('\\ud800');
    expect(unwrapStarplanJson(decodeText(Buffer.from(text, 'latin1'), LATIN1_JSON))).toEqual([{ name: 'Analysis \ufffd 1', shortname: 'x\ufffdy', emoji: 'a😀b', id: 7 }]);
  });

  it('leaves a body without escapes or controls exactly as sent', () => {
    const text = decodeText(asSent('getlocs.json'), LATIN1_JSON);
    expect(text).toBe(readFileSync(`${RECORDED}/getlocs.json`, 'utf8'));
  });

  it('turns garbage into an UpstreamError of its request, not a crash', () => {
    const garbage = Buffer.from(Array.from({ length: 512 }, (_, index) => (index * 151 + 7) % 256));
    expect(() => unwrapStarplanJson(decodeText(garbage, LATIN1_JSON))).toThrow(UpstreamError);
  });
});

describe('StarPlan JSON bodies', () => {
  it('unwraps [[...]]: the payload is the first element', () => {
    const groups = unwrapStarplanJson(decodeText(asSent('getPgsExt_pu37_og35.json'), LATIN1_JSON)) as { lectures: { pgid: number; shortname: string }[] }[];
    expect(groups.length).toBeGreaterThan(0);
    const shared = groups.flatMap((group) => group.lectures).find((lecture) => lecture.shortname === 'Fachschaft INF');
    expect(shared?.pgid).toBe(13796);
  });

  it('turns the 200-with-error body into a non-retryable UpstreamError', () => {
    const text = decodeText(asSent('getpartinfo_error.json'), LATIN1_JSON);
    expect(() => unwrapStarplanJson(text)).toThrow(/no planning units/);
    try {
      unwrapStarplanJson(text);
    } catch (error) {
      expect((error as UpstreamError).retryable).toBe(false);
    }
  });

  it('rejects truncated JSON', () => {
    const text = readFileSync(`${RECORDED}/getogs_pu37.json`, 'utf8');
    expect(() => unwrapStarplanJson(text.slice(0, text.length / 2))).toThrow(UpstreamError);
  });
});

describe('planning unit selection', () => {
  const units = { records: JSON.parse(readFileSync(`${RECORDED}/getpus.json`, 'utf8'))[0], refusedIds: [] };
  it('takes the unit whose dates contain today', () => {
    expect(selectPlanningUnit(units, '2024-04-01').id).toBe(37);
    expect(selectPlanningUnit(units, '2023-12-01').id).toBe(34);
  });
  it('takes the latest when none contains today', () => {
    expect(selectPlanningUnit(units, '2030-01-01').id).toBe(37);
  });
  it('honours a forced unit and refuses an unknown one', () => {
    expect(selectPlanningUnit(units, '2024-04-01', 33).id).toBe(33);
    expect(() => selectPlanningUnit(units, '2024-04-01', 999)).toThrow(UpstreamError);
  });
  it('leaves out a refused unit only while it cannot be the one to choose', () => {
    const withRefused = (refusedIds: (number | null)[]) => ({ ...units, refusedIds });
    expect(selectPlanningUnit(withRefused([12]), '2024-04-01').id).toBe(37);
    expect(selectPlanningUnit(withRefused([12]), '2024-04-01', 33).id).toBe(33);
    expect(() => selectPlanningUnit(withRefused([999]), '2024-04-01', 999)).toThrow(/was refused at the boundary/);
    expect(() => selectPlanningUnit(withRefused([null]), '2024-04-01', 998)).toThrow(/was refused at the boundary/);
    expect(() => selectPlanningUnit(withRefused([12]), '2030-01-01')).toThrow(/which one is current cannot be told/);
  });
});

describe('StarplanClient over HTTP', () => {
  let server: Server;
  let baseUrl: string;
  let failuresLeft = 0;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests += 1;
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname.startsWith('/moved/')) {
        res.writeHead(301, { location: `${url.pathname.replace('/moved/', '/splan/')}${url.search}` }).end();
        return;
      }
      // Redirects to itself for ever; the location is relative to the request's address.
      if (url.pathname.startsWith('/circle/')) {
        res.writeHead(302, { location: `json${url.search}` }).end('moved');
        return;
      }
      // A redirect that leads nowhere.
      if (url.pathname.startsWith('/nowhere/')) {
        res.writeHead(302, { location: '' }).end();
        return;
      }
      // Two hops, each well within a 100 ms timeout, but not both.
      if (url.pathname.startsWith('/slow-hop/')) {
        setTimeout(() => res.writeHead(307, { location: `${url.pathname.replace('/slow-hop/', '/slow-end/')}${url.search}` }).end(), 70);
        return;
      }
      if (url.pathname.startsWith('/slow-end/')) {
        setTimeout(() => res.writeHead(200, { 'content-type': LATIN1_JSON }).end(asSent('getlocs.json')), 70);
        return;
      }
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        res.writeHead(500).end('boom');
        return;
      }
      const method = url.searchParams.get('m');
      if (method === 'getles') return; // never answers: the timeout must fire
      if (method === 'getPgsExt') {
        // Promises more than it sends, then hangs up: the body is cut short after the headers.
        res.writeHead(200, { 'content-type': LATIN1_JSON, 'content-length': '1000' });
        res.write('[[{"id":1,');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      // An interim answer first, as a server behind some proxies sends: the GET waits for the final one.
      if (method === 'getlocs') res.writeEarlyHints({ link: '</splan/json>; rel=preload' });
      const file = method === 'getlocs' ? 'getlocs.json' : method === 'getogs' ? 'getogs_pu37.json' : 'getpartinfo_error.json';
      res.writeHead(200, { 'content-type': LATIN1_JSON }).end(asSent(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/splan/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = (timeoutMs = 2000) => new StarplanClient({ baseUrl, timeZone: 'Europe/Berlin', policy: { timeoutMs, retries: 2, backoffMs: 5 } });

  it('reads and validates a list (its answer preceded by a 103 Early Hints)', async () => {
    const locations = await client().locations();
    expect(locations.find((location) => location.id === 6)?.shortname).toBe('AÖ');
  });

  it('follows a redirect', async () => {
    const moved = new StarplanClient({ baseUrl: baseUrl.replace('/splan/', '/moved/'), timeZone: 'Europe/Berlin' });
    expect((await moved.locations()).find((location) => location.id === 6)?.shortname).toBe('AÖ');
  });

  it('follows at most five redirects, then takes the answer as it is: an HTTP error, not retried', async () => {
    requests = 0;
    const circling = new StarplanClient({ baseUrl: baseUrl.replace('/splan/', '/circle/'), timeZone: 'Europe/Berlin', policy: { retries: 2, backoffMs: 5 } });
    await expect(circling.locations()).rejects.toThrow(/answered HTTP 302/);
    expect(requests).toBe(6);
  });

  it('takes a redirect with an empty Location as the answer: an HTTP error, one request', async () => {
    requests = 0;
    const nowhere = new StarplanClient({ baseUrl: baseUrl.replace('/splan/', '/nowhere/'), timeZone: 'Europe/Berlin', policy: { retries: 2, backoffMs: 5 } });
    await expect(nowhere.locations()).rejects.toThrow(/answered HTTP 302/);
    expect(requests).toBe(1);
  });

  it('times out a redirected GET whose hops together take longer than the timeout, each hop alone shorter', async () => {
    const redirected = new StarplanClient({ baseUrl: baseUrl.replace('/splan/', '/slow-hop/'), timeZone: 'Europe/Berlin', policy: { timeoutMs: 100, retries: 0 } });
    await expect(redirected.locations()).rejects.toThrow(/timed out after 100 ms/);
    const patient = new StarplanClient({ baseUrl: baseUrl.replace('/splan/', '/slow-hop/'), timeZone: 'Europe/Berlin', policy: { timeoutMs: 2000, retries: 0 } });
    expect((await patient.locations()).find((location) => location.id === 6)?.shortname).toBe('AÖ');
  });

  it('retries a 5xx and then succeeds', async () => {
    failuresLeft = 2;
    requests = 0;
    await expect(client().programs(37).then((programs) => programs.records)).resolves.toHaveLength(JSON.parse(readFileSync(`${RECORDED}/getogs_pu37.json`, 'utf8'))[0].length);
    expect(requests).toBe(3);
  });

  it('gives up after the bounded retries', async () => {
    failuresLeft = 5;
    await expect(client().locations()).rejects.toThrow(/HTTP 500/);
    failuresLeft = 0;
  });

  it('does not retry an error body', async () => {
    requests = 0;
    await expect(client().rooms(3)).rejects.toThrow(/no planning units/);
    expect(requests).toBe(1);
  });

  it('retries a body cut short after the headers, and says so once the retries are spent', async () => {
    requests = 0;
    await expect(client().planningGroups(37, 1)).rejects.toThrow(/body not received/);
    expect(requests).toBe(3);
  });

  it('times out a request that never answers', async () => {
    const slow = new StarplanClient({ baseUrl, timeZone: 'Europe/Berlin', policy: { timeoutMs: 100, retries: 0 } });
    await expect(slow.lecturers(35)).rejects.toThrow(/timed out/);
  });
});
