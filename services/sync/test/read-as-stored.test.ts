import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { calendarBodyHash, jsonBodyHash } from '../src/features/read/body-hash.js';
import { readAsStored, readPlanningUnits, type LastRead } from '../src/features/read/read-as-stored.js';
import { ReadAhead } from '../src/features/read/read-ahead.js';
import { groupCalendarRequest, StarplanClient } from '../src/features/read/starplan-client.js';

/**
 * A run after a complete one first asks for every answer that run read, only hashing them. Here the upstream
 * answers every list but the planning units with items of a shape the client refuses: the read finds them as
 * stored all the same, which it could not if it decoded them.
 */
const JSON_TYPE = 'application/json; charset=ISO-8859-1';
const CALENDAR_TYPE = 'text/calendar; charset=utf-8';
const TIME_ZONE = 'Europe/Berlin';
const PU = 37;
const planningUnits = (id: number) => JSON.stringify([[{ id, shortname: '2024 SoSe', name: 'Sommersemester 2024', startdate: '2024-03-15', enddate: '2024-09-30' }]]);
const refused = (name: string) => JSON.stringify([[{ unexpected: name }]]);
const calendar = (uid: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTART:20240415T081500\r\nDTEND:20240415T094500\r\nSUMMARY:MA1\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;

const LISTS = ['json?m=getogs&pu=37', 'json?m=getlocs', 'json?m=getros&loc=3', 'json?m=getPgsExt&pu=37&og=35', 'json?m=getles&og=35'];
const FEEDS = [1001, 1002, 1003];

let server: Server;
let baseUrl: string;
/** Request (relative to the base URL) -> the answer's body. */
let answers: Map<string, { body: string; contentType: string }>;
let asked: string[];

function upstreamAsStored(): Map<string, { body: string; contentType: string }> {
  return new Map([
    ['json?m=getpus', { body: planningUnits(PU), contentType: JSON_TYPE }],
    ...LISTS.map((request) => [request, { body: refused(request), contentType: JSON_TYPE }] as const),
    ...FEEDS.map((pgid) => [groupCalendarRequest(PU, pgid), { body: calendar(`export-${pgid}`), contentType: CALENDAR_TYPE }] as const),
  ]);
}

/** The last run's hashes of what `upstreamAsStored` answers, the feeds' with other UIDs (StarPlan's export writes new ones each time). */
function lastRead(): LastRead {
  const stored = upstreamAsStored();
  // The lists that name others come last here, so only reading in steps asks for them first.
  const lists = new Map(['json?m=getpus', ...LISTS.slice(2), ...LISTS.slice(0, 2)].map((request) => [request, jsonBodyHash(Buffer.from(stored.get(request)!.body, 'latin1'), JSON_TYPE)]));
  const feeds = new Map(FEEDS.map((pgid) => [pgid, { bodyHash: calendarBodyHash(Buffer.from(calendar(`earlier-${pgid}`)), CALENDAR_TYPE, TIME_ZONE) }]));
  return { planningUnitId: PU, lists, feeds };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const request = (req.url ?? '').replace(/^\/splan\//, '');
    asked.push(request);
    const answer = answers.get(request);
    if (!answer) res.writeHead(500).end();
    else res.writeHead(200, { 'content-type': answer.contentType }).end(Buffer.from(answer.body, answer.contentType === JSON_TYPE ? 'latin1' : 'utf8'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/splan`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  answers = upstreamAsStored();
  asked = [];
});

const newClient = () => new StarplanClient({ baseUrl, timeZone: TIME_ZONE, policy: { retries: 1, backoffMs: 1 } });
const options = { today: '2024-04-15', concurrency: 2 };
/** The position in `asked` of the last request of `requests`, and of the first. */
const lastOf = (requests: readonly string[]) => Math.max(...requests.map((request) => asked.indexOf(request)));
const firstOf = (requests: readonly string[]) => Math.min(...requests.map((request) => asked.indexOf(request)));

describe('reading every answer the last complete run read', () => {
  it('finds them as stored without decoding a list but the planning units, asking for each once, a step at a time', async () => {
    const read = await readAsStored(newClient(), lastRead(), options);
    expect(read).toMatchObject({ everyAnswerAsStored: true, planningUnit: { id: PU }, feedsUnchanged: FEEDS.length });
    const feedRequests = FEEDS.map((pgid) => groupCalendarRequest(PU, pgid));
    expect([...asked].sort()).toEqual(['json?m=getpus', ...LISTS, ...feedRequests].sort());
    expect(asked[0]).toBe('json?m=getpus');
    const [namingLists, otherLists] = [LISTS.slice(0, 2), LISTS.slice(2)];
    expect(lastOf(namingLists)).toBeLessThan(firstOf(otherLists));
    expect(lastOf(otherLists)).toBeLessThan(firstOf(feedRequests));
    expect(Object.fromEntries(read.bodies)).toEqual(Object.fromEntries([...lastRead().lists, ...feedRequests.map((request, index) => [request, lastRead().feeds.get(FEEDS[index]!)!.bodyHash] as const)]));
  });

  it('stops at the step where an answer differs, and the usual read takes the answers it received rather than asking again', async () => {
    answers.set('json?m=getlocs', { body: JSON.stringify([[{ id: 3, shortname: 'A', name: 'Campus A' }]]), contentType: JSON_TYPE });
    const client = newClient();
    const read = await readAsStored(client, lastRead(), options);
    expect(read.everyAnswerAsStored).toBe(false);
    expect([...asked].sort()).toEqual(['json?m=getlocs', 'json?m=getogs&pu=37', 'json?m=getpus']);
    const locations = await client.withReadAhead(read.ahead).locations();
    expect(locations).toEqual([{ id: 3, shortname: 'A', name: 'Campus A' }]);
    expect(asked).toHaveLength(3);
    // Taken once: a later read of the same request asks.
    await client.withReadAhead(read.ahead).locations();
    expect(asked).toHaveLength(4);
  });

  it('asks for nothing more once the planning unit of today is another one', async () => {
    answers.set('json?m=getpus', { body: planningUnits(38), contentType: JSON_TYPE });
    const read = await readAsStored(newClient(), lastRead(), options);
    expect(read).toMatchObject({ everyAnswerAsStored: false, planningUnit: { id: 38 } });
    expect(asked).toEqual(['json?m=getpus']);
  });

  it('takes the planning units the run has read already (while the store answered) without asking again', async () => {
    const client = newClient();
    const planningUnitsRead = await readPlanningUnits(client);
    asked.length = 0;
    const read = await readAsStored(client, lastRead(), { ...options, planningUnitsRead });
    expect(read.everyAnswerAsStored).toBe(true);
    expect(asked).not.toContain('json?m=getpus');
    expect(read.bodies.get('json?m=getpus')).toBe(planningUnitsRead.seen.get('json?m=getpus'));
  });

  it('asks for nothing more once today falls in another planning unit of an unchanged list', async () => {
    const twoUnits = JSON.stringify([
      [
        { id: PU, shortname: '2024 SoSe', name: 'Sommersemester 2024', startdate: '2024-03-15', enddate: '2024-09-30' },
        { id: 38, shortname: '2024 WS', name: 'Wintersemester 2024/25', startdate: '2024-10-01', enddate: '2025-03-14' },
      ],
    ]);
    answers.set('json?m=getpus', { body: twoUnits, contentType: JSON_TYPE });
    const last = lastRead();
    const lists = new Map([...last.lists, ['json?m=getpus', jsonBodyHash(Buffer.from(twoUnits, 'latin1'), JSON_TYPE)]]);
    const inSummer = await readAsStored(newClient(), { ...last, lists }, options);
    expect(inSummer).toMatchObject({ everyAnswerAsStored: true, planningUnit: { id: PU } });
    asked = [];
    const inWinter = await readAsStored(newClient(), { ...last, lists }, { ...options, today: '2024-10-15' });
    expect(inWinter).toMatchObject({ everyAnswerAsStored: false, planningUnit: { id: 38 } });
    expect(asked).toEqual(['json?m=getpus']);
  });

  it('keeps a failure for the usual read, which meets it without asking again', async () => {
    answers.delete('json?m=getogs&pu=37');
    const client = newClient();
    const read = await readAsStored(client, lastRead(), options);
    expect(read.everyAnswerAsStored).toBe(false);
    // The first attempt and the one retry the policy allows.
    expect(asked.filter((request) => request === 'json?m=getogs&pu=37')).toHaveLength(2);
    await expect(client.withReadAhead(read.ahead).programs(PU)).rejects.toThrow(/answered HTTP 500/);
    expect(asked.filter((request) => request === 'json?m=getogs&pu=37')).toHaveLength(2);
  });

  it('a feed that differs is kept whole and parsed by the usual read; one found as stored is handed on as known', async () => {
    const [changed, same] = FEEDS;
    answers.set(groupCalendarRequest(PU, changed!), { body: calendar(`export-${changed}`).replace('T081500', 'T071500'), contentType: CALENDAR_TYPE });
    const client = newClient();
    const last = lastRead();
    // One feed at a time, so the feed found as stored is read before the one that differs, and nothing after it.
    const read = await readAsStored(client, { ...last, feeds: new Map([same!, changed!].map((pgid) => [pgid, last.feeds.get(pgid)!])) }, { ...options, concurrency: 1 });
    expect(read.everyAnswerAsStored).toBe(false);
    expect(asked.slice(-2)).toEqual([groupCalendarRequest(PU, same!), groupCalendarRequest(PU, changed!)]);
    const reading = client.withReadAhead(read.ahead);
    const changedRead = await reading.groupCalendarUnlessKnown(PU, { og: 1, pgid: changed! }, last.feeds.get(changed!));
    expect(changedRead.occurrences).toHaveLength(1);
    const sameRead = await reading.groupCalendarUnlessKnown(PU, { og: 1, pgid: same! }, last.feeds.get(same!));
    expect(sameRead).toMatchObject({ occurrences: null, bodyHash: last.feeds.get(same!)!.bodyHash });
    expect(asked).toHaveLength(1 + LISTS.length + 2);
  });
});

describe('a list whose items the client keeps', () => {
  it('is read ahead without its body, and the usual read hands back the kept items without asking', async () => {
    answers.set('json?m=getlocs', { body: JSON.stringify([[{ id: 3, shortname: 'A', name: 'Campus A' }]]), contentType: JSON_TYPE });
    const client = newClient();
    expect((await client.listAnswer('json?m=getlocs')).earlier).toBeDefined();
    const kept = await client.locations();
    const answer = await client.listAnswer('json?m=getlocs');
    expect(answer.earlier).toBeUndefined();
    const ahead = new ReadAhead();
    ahead.set('json?m=getlocs', { kind: 'known', bodyHash: answer.bodyHash, validators: answer.validators });
    const seen = new Map<string, string>();
    expect(await client.withReadAhead(ahead).locations(seen)).toBe(kept);
    expect(seen.get('json?m=getlocs')).toBe(answer.bodyHash);
    expect(asked).toHaveLength(3);
  });
});

describe('an answer received ahead and found broken', () => {
  it('is retried as the attempt it was: no more requests than had it been decoded on arrival', async () => {
    answers.set('json?m=getlocs', { body: '[[{"id":3,"shortn', contentType: JSON_TYPE });
    const client = newClient();
    const ahead = new ReadAhead();
    const answer = await client.listAnswer('json?m=getlocs');
    ahead.set('json?m=getlocs', { kind: 'unchecked', earlier: answer.earlier! });
    answers.set('json?m=getlocs', { body: JSON.stringify([[{ id: 3, shortname: 'A', name: 'Campus A' }]]), contentType: JSON_TYPE });
    expect(await client.withReadAhead(ahead).locations()).toEqual([{ id: 3, shortname: 'A', name: 'Campus A' }]);
    expect(asked).toEqual(['json?m=getlocs', 'json?m=getlocs']);
  });

  it('on its last attempt fails without another request', async () => {
    answers.set('json?m=getlocs', { body: '[[{"id":3,"shortn', contentType: JSON_TYPE });
    const client = newClient();
    const ahead = new ReadAhead();
    const answer = await client.listAnswer('json?m=getlocs');
    // The policy allows one retry: an answer from attempt 1 was the last.
    ahead.set('json?m=getlocs', { kind: 'unchecked', earlier: { ...answer.earlier!, attempt: 1 } });
    await expect(client.withReadAhead(ahead).locations()).rejects.toThrow(/truncated JSON/);
    expect(asked).toEqual(['json?m=getlocs']);
  });
});
