import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { READ_VERSION, readFeeds, readLists } from '../src/features/read/read-upstream.js';
import { StarplanClient } from '../src/features/read/starplan-client.js';
import * as listSchemas from '../src/features/validate/list-records.js';

/**
 * A small fixed upstream: one planning unit, two programs sharing a group, one location. Its JSON is
 * ISO-8859-1 with a non-ASCII name and an escaped control character, as StarPlan's can be, so what decoding
 * makes of them counts too.
 */
const JSON_TYPE = 'application/json; charset=ISO-8859-1';
const lecture = (id: number, pgid: number) => ({ id, shortname: `L${id}`, name: `Vorlesung ${id}`, pgid });
const UPSTREAM: Record<string, unknown[]> = {
  'json?m=getpus': [{ id: 37, shortname: '2025 WS', name: 'Wintersemester 2025/26', startdate: '2025-10-01', enddate: '2026-03-14' }],
  'json?m=getogs&pu=37': [
    { id: 35, shortname: 'INF-B', name: 'Bachelor Informatik' },
    { id: 36, shortname: 'WIF-B', name: 'Bachelor Wirtschaftsinformatik' },
  ],
  'json?m=getlocs': [{ id: 3, shortname: 'AÖ', name: 'Campus Aschaffenburg Ö' }],
  'json?m=getros&loc=3': [
    { id: 49, shortname: 'A4.05', name: 'Seminarraum', seats: 12, bshortname: 'A' },
    { id: 50, shortname: 'A4.06', name: 'Labor\u0007', seats: null },
  ],
  'json?m=getPgsExt&pu=37&og=35': [
    { id: 1001, shortname: 'INF-B 1', name: 'Informatik 1. Semester', lectures: [lecture(501, 1001)] },
    { id: 1002, shortname: 'FWPM', name: 'Wahlpflicht', lectures: [lecture(502, 1002)] },
  ],
  'json?m=getPgsExt&pu=37&og=36': [
    { id: 1002, shortname: 'FWPM', name: 'Wahlpflicht', lectures: [lecture(502, 1002)] },
    { id: 1003, shortname: 'WIF-B 1', name: 'Wirtschaftsinformatik 1. Semester' },
  ],
  'json?m=getles&og=35': [{ id: 7, name: 'Müller', firstname: 'Anna', title: 'Prof. Dr.', email: null }],
  'json?m=getles&og=36': [{ id: 8, name: 'Schmidt' }],
};
const CALENDAR = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nDTSTART:20251015T081500\r\nDTEND:20251015T094500\r\nSUMMARY:L501\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';

let server: Server;
let baseUrl: string;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const request = (req.url ?? '').replace(/^\/splan\//, '');
    asked.push(request);
    const list = UPSTREAM[request];
    if (list) res.writeHead(200, { 'content-type': JSON_TYPE }).end(Buffer.from(JSON.stringify([list]), 'latin1'));
    else if (request.startsWith('ical?')) res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' }).end(CALENDAR);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/splan`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('READ_VERSION', () => {
  /**
   * What a run asks the fixed upstream for, what it reads from the answers, and the schemas its lists are
   * validated against, per version. A run after a complete one repeats the requests that run made without
   * decoding the lists, so a change that moves this digest must raise READ_VERSION (otherwise the first run
   * after it finds the fingerprint as before and never reads the lists with the new code) and pin the new
   * digest here.
   */
  const READ: Record<number, string> = {
    1: '4b248aed99b3be4ad839ab9202f9ae1ff2649d9fdd25e5c30b705767e84b14af',
    // Records validated at the boundary, with bounds.
    2: '59c5f9cf47676f4fe3c486c18117e6dcf24a1666f7d654ce8ea72740877a2736',
  };

  it('is raised whenever what a run asks for, or what it reads from a list, changes', async () => {
    const client = new StarplanClient({ baseUrl, timeZone: 'Europe/Berlin' });
    const { upstream, failures } = await readLists(client, { today: '2025-11-12' });
    expect(failures).toEqual([]);
    const feeds: number[] = [];
    expect(await readFeeds(client, upstream, { onParsed: (_og, group) => void feeds.push(group.id) })).toEqual([]);
    const read = {
      requests: [...asked].sort(),
      planningUnit: upstream.planningUnit,
      programs: upstream.programs,
      rooms: upstream.rooms,
      groupsByProgram: [...upstream.groupsByProgram].sort(([a], [b]) => a - b),
      lecturersByProgram: [...upstream.lecturersByProgram].sort(([a], [b]) => a - b),
      feeds: feeds.sort(),
      schemas: Object.entries(listSchemas).map(([name, schema]) => [name, z.toJSONSchema(schema)]),
    };
    // Each group's feed once, the group two programs list included.
    expect(read.feeds).toEqual([1001, 1002, 1003]);
    const digest = createHash('sha256').update(JSON.stringify(read)).digest('hex');
    expect({ version: READ_VERSION, digest }, 'what a run asks for or reads from a list changed: raise READ_VERSION and pin the new digest').toEqual({
      version: READ_VERSION,
      digest: READ[READ_VERSION],
    });
  });
});
