import { EventEmitter } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fillGroupCalendar, renderGroupCalendar, type CalendarEntry } from '../src/encode/group-calendar.js';
import { exportableFeed, exportFeed } from '../src/http/feed-export.js';
import { startSimulator, type RunningSimulator } from '../src/index.js';

/**
 * The simulator keeps what it rendered until the model changes. What a client sees must not show it: every
 * export has UIDs and a stamp of its own, a change shows in the next answer, and a misbehaving answer is
 * never served again as the model's.
 */
const running: RunningSimulator[] = [];
afterEach(async () => {
  for (const sim of running.splice(0)) await sim.stop();
});

async function start(): Promise<{ sim: RunningSimulator; feedUrl: string; pgid: number }> {
  const sim = await startSimulator({ seed: 11, today: '2024-03-20' });
  running.push(sim);
  const { model } = sim.simulator;
  const pgid = [...model.groups.keys()].find((id) => model.occurrencesOfGroup(model.currentPuId, id).length > 3)!;
  return { sim, pgid, feedUrl: `${sim.url}/ical?lan=de&puid=${model.currentPuId}&type=pg&pgid=${pgid}` };
}

const text = async (url: string) => (await fetch(url)).text();
/** The feed with folded lines joined, so a name can be looked for whole. */
const unfolded = async (url: string) => (await text(url)).replace(/\r\n[ \t]/g, '');
const uidPrefixes = (feed: string) => new Set([...feed.matchAll(/^UID:([0-9a-f]{12})-\d+@starplan-sim\r$/gm)].map((match) => match[1]));
const withoutVolatile = (feed: string) => feed.replace(/^(UID|DTSTAMP):.*\r\n/gm, '');

describe('kept feeds', () => {
  it('give every export UIDs of its own and the current stamp, around the same events', async () => {
    const { feedUrl } = await start();
    const asStamp = (instant: Date) => instant.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const stampsOf = (feed: string) => [...new Set([...feed.matchAll(/^DTSTAMP:(\d{8}T\d{6}Z)\r$/gm)].map((match) => match[1]!))];
    const exports: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const before = asStamp(new Date());
      const feed = await text(feedUrl);
      const after = asStamp(new Date());
      // One stamp in each export, the time it was sent (the stamps are UTC in the same digits, so they sort as text).
      const [stamp, ...others] = stampsOf(feed);
      expect(others).toEqual([]);
      expect(stamp! >= before && stamp! <= after).toBe(true);
      exports.push(feed);
    }
    const prefixes = exports.map((feed) => [...uidPrefixes(feed)]);
    for (const own of prefixes) expect(own).toHaveLength(1);
    expect(new Set(prefixes.flat()).size).toBe(3);
    for (const feed of exports) expect(withoutVolatile(feed)).toBe(withoutVolatile(exports[0]!));
  });

  it('give each of several answers waiting on one connection UIDs of its own', async () => {
    // Pipelined requests: the answers after the first wait in the server, each holding its body, until the one
    // before has gone; an export written over the bytes another answer still holds would show in both.
    const { feedUrl } = await start();
    const { host, port, pathname, search } = new URL(feedUrl);
    const requests = Array.from({ length: 5 }, (_, index) => `GET ${pathname}${search} HTTP/1.1\r\nHost: ${host}\r\n${index === 4 ? 'Connection: close\r\n' : ''}\r\n`);
    const received = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(requests.join('')));
      socket.on('data', (chunk) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).on('error', reject);
    });
    const answers = received.split(/^HTTP\/1\.1 /m).filter(Boolean);
    expect(answers.map((answer) => answer.slice(0, 6))).toEqual(Array(5).fill('200 OK'));
    const prefixes = answers.map((answer) => [...uidPrefixes(answer)]);
    for (const own of prefixes) expect(own).toHaveLength(1);
    expect(new Set(prefixes.flat()).size).toBe(5);
  });

  it('show a change made through the simulator in the next answer', async () => {
    const { sim, feedUrl, pgid } = await start();
    const before = await text(feedUrl);
    const { model } = sim.simulator;
    const occurrence = model.occurrencesOfGroup(model.currentPuId, pgid).find((candidate) => !candidate.cancelled)!;
    sim.simulator.cancelOccurrence({ occurrenceId: occurrence.id });
    const after = await text(feedUrl);
    expect(after.split('STATUS:CANCELLED').length).toBe(before.split('STATUS:CANCELLED').length + 1);
  });

  it('are kept: a change made to the model by hand shows only once modelChanged() says so', async () => {
    const { sim } = await start();
    const getpus = `${sim.url}/json?m=getpus`;
    const unit = sim.simulator.model.currentPlanningUnit;
    const before = await text(getpus);
    expect(before).toContain(`"name":"${unit.name}"`);
    unit.name = 'Umbenanntes Semester';
    expect(await text(getpus)).toBe(before);
    sim.simulator.modelChanged();
    expect(await text(getpus)).toContain('"name":"Umbenanntes Semester"');
  });

  it('are dropped by a change that fails half-way, since it may have changed something', async () => {
    const { sim, feedUrl, pgid } = await start();
    const { model } = sim.simulator;
    const lecture = model.lectures.get(model.occurrencesOfGroup(model.currentPuId, pgid)[0]!.lectureId)!;
    expect(await unfolded(feedUrl)).toContain(lecture.name);
    lecture.name = 'Von Hand umbenannt';
    expect(await unfolded(feedUrl)).not.toContain('Von Hand umbenannt');
    expect(() => sim.simulator.moveRoom({ occurrenceId: -1, roomIds: [] })).toThrow();
    expect(await unfolded(feedUrl)).toContain('Von Hand umbenannt');
  });

  it('follow changes and resets made through the admin routes', async () => {
    const { sim, feedUrl, pgid } = await start();
    const { model } = sim.simulator;
    const lectureId = model.occurrencesOfGroup(model.currentPuId, pgid)[0]!.lectureId;
    const original = await text(feedUrl);
    const admin = (path: string, body?: unknown) =>
      fetch(`${sim.url}/__admin/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await admin('change', { op: 'renameLecture', args: { lectureId, name: 'Über die Verwaltung umbenannt' } })).status).toBe(200);
    expect(await unfolded(feedUrl)).toContain('Über die Verwaltung umbenannt');
    expect((await admin('reset')).status).toBe(204);
    expect(withoutVolatile(await text(feedUrl))).toBe(withoutVolatile(original));
  });

  it('never keep a misbehaving answer as the model\'s', async () => {
    const { sim, feedUrl } = await start();
    const whole = await text(feedUrl);
    sim.simulator.misbehave('ical', { failure: 'empty', times: 1 });
    expect(await text(feedUrl)).not.toContain('BEGIN:VEVENT');
    expect(withoutVolatile(await text(feedUrl))).toBe(withoutVolatile(whole));
    sim.simulator.misbehave('getpus', { failure: 'error', times: 1 });
    const getpus = `${sim.url}/json?m=getpus`;
    expect(await text(getpus)).toContain('"error"');
    expect(await text(getpus)).not.toContain('"error"');
  });
});

describe('a rendered feed filled for an export', () => {
  const entry = (index: number, summary: string): CalendarEntry => ({
    occurrence: {
      occurrenceId: index,
      lectureId: 1,
      summary,
      lectureName: 'Grundlagen',
      start: `2024-03-2${index}T08:00:00`,
      end: `2024-03-2${index}T09:30:00`,
      roomShortnames: ['A 1.01'],
      lecturerNames: ['Müller'],
      groupShortname: 'ÄÖÜ 1',
    },
    cancelled: index === 2,
  });

  it('puts the UID prefix and the stamp at their places, after text of any UTF-8 length', () => {
    const template = renderGroupCalendar('Grüße', [entry(1, 'Übung – Straße'), entry(2, 'ß'.repeat(80)), entry(3, 'plain')]);
    const feed = fillGroupCalendar(template, new Date('2024-03-20T10:11:12.345Z'));
    expect(feed.length).toBe(template.bytes.length);
    const lines = feed.toString('utf8').split('\r\n');
    const uids = lines.filter((line) => line.startsWith('UID:'));
    expect(uids).toHaveLength(3);
    const prefix = /^UID:([0-9a-f]{12})-0@starplan-sim$/.exec(uids[0]!)?.[1];
    expect(prefix).toBeDefined();
    expect(uids).toEqual([0, 1, 2].map((index) => `UID:${prefix}-${index}@starplan-sim`));
    expect(lines.filter((line) => line.startsWith('DTSTAMP:'))).toEqual(Array(3).fill('DTSTAMP:20240320T101112Z'));
    // Each event's lines in order, the stamp right after the UID.
    const firstEvent = lines.slice(lines.indexOf('BEGIN:VEVENT'), lines.indexOf('END:VEVENT') + 1);
    expect(firstEvent.slice(0, 4)).toEqual(['BEGIN:VEVENT', uids[0], 'DTSTAMP:20240320T101112Z', 'DTSTART;TZID=Europe/Berlin:20240321T080000']);
    expect(lines).toContain('SUMMARY:Übung – Straße');
  });
});

describe('exports of a kept feed', () => {
  const template = () =>
    renderGroupCalendar('G 1', [1, 2].map((index) => ({
      occurrence: { occurrenceId: index, lectureId: 1, summary: 'S', lectureName: 'L', start: `2024-03-2${index}T08:00:00`, end: `2024-03-2${index}T09:30:00`, roomShortnames: [], lecturerNames: [], groupShortname: 'G 1' },
      cancelled: false,
    })));
  const prefixOf = (bytes: Buffer) => [...uidPrefixes(bytes.toString('utf8'))];
  /** An answer being sent, which the test closes or whose connection it ends. */
  const answer = () => {
    const events = new EventEmitter();
    let ended = false;
    return { once: (event: 'close', listener: () => void) => events.once(event, listener), connectionEnded: () => ended, close: () => events.emit('close'), endConnection: () => (ended = true) };
  };

  it('send the template\'s own bytes, and a copy while another answer is still sending them', () => {
    const feed = exportableFeed(template());
    const first = answer();
    const sent = exportFeed(feed, first, new Date('2024-03-20T10:00:00Z'));
    // No copy: the template's bytes, filled.
    expect(sent).toBe(feed.template.bytes);
    const [firstPrefix] = prefixOf(sent);
    const second = exportFeed(feed, answer(), new Date('2024-03-20T10:00:01Z'));
    expect(second).not.toBe(feed.template.bytes);
    // The first answer's bytes are as it filled them.
    expect(prefixOf(sent)).toEqual([firstPrefix]);
    expect(sent.toString('utf8')).toContain('DTSTAMP:20240320T100000Z');
    expect(prefixOf(second)).toHaveLength(1);
    expect(prefixOf(second)).not.toEqual([firstPrefix]);
    expect(second.toString('utf8')).toContain('DTSTAMP:20240320T100001Z');
    // Once the first answer closed, the template's bytes are free for the next export.
    first.close();
    const third = exportFeed(feed, answer(), new Date('2024-03-20T10:00:02Z'));
    expect(third).toBe(feed.template.bytes);
    expect(third.toString('utf8')).toContain('DTSTAMP:20240320T100002Z');
  });

  it('take the bytes back from an answer whose connection ended before it was sent, and only its holder lets them go', () => {
    const feed = exportableFeed(template());
    const queued = answer();
    expect(exportFeed(feed, queued, new Date())).toBe(feed.template.bytes);
    // Waiting behind another answer on its connection, it never closes once that connection ends.
    queued.endConnection();
    const next = answer();
    expect(exportFeed(feed, next, new Date())).toBe(feed.template.bytes);
    // A late close of the old holder does not free what the new one holds.
    queued.close();
    expect(exportFeed(feed, answer(), new Date())).not.toBe(feed.template.bytes);
    next.close();
    expect(exportFeed(feed, answer(), new Date())).toBe(feed.template.bytes);
  });
});

describe('kept feeds as the server sends them', () => {
  /** The simulator behind a server of the test's own that notes the body each answer is given. */
  async function recordingServer(): Promise<{ origin: string; feedPath: string; bodies: Buffer[]; sim: RunningSimulator; close: () => Promise<void> }> {
    const { sim, feedUrl } = await start();
    const bodies: Buffer[] = [];
    const server = createServer((req, res) => {
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        if (Buffer.isBuffer(args[0])) bodies.push(args[0]);
        return end(...args);
      }) as ServerResponse['end'];
      sim.simulator.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const { pathname, search } = new URL(feedUrl);
    const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    return { origin: `http://127.0.0.1:${port}`, feedPath: `${pathname}${search}`, bodies, sim, close };
  }

  it('answer one request after another with the kept feed\'s own bytes, no copy', async () => {
    const server = await recordingServer();
    try {
      const first = await text(`${server.origin}${server.feedPath}`);
      const second = await text(`${server.origin}${server.feedPath}`);
      expect(server.bodies).toHaveLength(2);
      expect(server.bodies[1]).toBe(server.bodies[0]);
      expect(uidPrefixes(first)).not.toEqual(uidPrefixes(second));
    } finally {
      await server.close();
    }
  });

  it('give an answer a copy while another, waiting its turn on its connection, holds the feed\'s bytes', async () => {
    const server = await recordingServer();
    try {
      // On one connection a slow answer, then the feed: the feed's answer waits behind it, holding its bytes.
      server.sim.simulator.misbehave('getpus', { delayMs: 300, times: 1 });
      const { port } = new URL(server.origin);
      const requests = [`GET /splan/json?m=getpus HTTP/1.1\r\nHost: x\r\n\r\n`, `GET ${server.feedPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`];
      const pipelined = new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(requests.join('')));
        socket.on('data', (chunk) => chunks.push(chunk)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).on('error', reject);
      });
      await expect.poll(() => server.bodies.length).toBe(1);
      // Meanwhile the feed on another connection.
      const other = await text(`${server.origin}${server.feedPath}`);
      // The JSON body ends without a line break, so the next status line starts mid-line.
      const waited = (await pipelined).split('HTTP/1.1 200 OK\r\n').filter(Boolean)[1]!;
      expect(server.bodies[1]).not.toBe(server.bodies[0]);
      expect([...uidPrefixes(waited)]).toHaveLength(1);
      expect([...uidPrefixes(other)]).toHaveLength(1);
      expect(uidPrefixes(waited)).not.toEqual(uidPrefixes(other));
    } finally {
      await server.close();
    }
  });
});
