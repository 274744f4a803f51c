import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '@timetable/contracts';
import { createKnex, type Knex } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { serveModule, type ServedModule } from '@timetable/service-kit';
import { captureLogger, createMigratedKnex, type TestDatabase } from '@timetable/testing';
import { CHANGES_SCHEMA, changesMigrations, createChangesService } from '../src/index.js';
import { ChangeStore } from '../src/features/change-log/change-store.js';

const { logger } = captureLogger('warn');
const programA = randomUUID();
let knex: Knex;
let database: TestDatabase;
let closeDatabase: () => Promise<void>;
let server: ServedModule;
/** Appends as the consumer does, through the store, on connections of their own. */
let writerKnex: Knex;
let writer: ChangeStore;

function change(overrides: Partial<ChangeEvent> = {}): ChangeEvent {
  return {
    id: randomUUID(),
    entityType: 'course',
    entityId: randomUUID(),
    action: 'updated',
    previousData: { name: 'Mathematik 1' },
    newData: { name: 'Mathematik 1a' },
    changedFields: ['name'],
    programId: null,
    semesterId: null,
    courseId: null,
    roomId: null,
    instructorId: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    syncRunId: randomUUID(),
    ...overrides,
  };
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/v1/timetable${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function idsAfter(cursor: string, query = ''): Promise<string[]> {
  const { status, body } = await get(`/changes?after=${cursor}${query}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return (body.data as { id: string }[]).map((record) => record.id);
}

// Clocks disagree: each append is dated earlier than the one before, so createdAt order is the reverse of
// append order, and a cursor by time would get them all wrong.
const first = change({ createdAt: '2025-03-01T00:00:00.000Z' });
const appended = [
  change({ createdAt: '2025-02-01T00:00:00.000Z', programId: programA }),
  change({ createdAt: '2025-01-01T00:00:00.000Z', entityType: 'room' }),
  change({ createdAt: '2024-12-01T00:00:00.000Z', programId: programA, action: 'created', previousData: null, changedFields: [] }),
];
const ids = (changes: ChangeEvent[]) => changes.map((record) => record.id);

beforeAll(async () => {
  ({ knex, database, close: closeDatabase } = await createMigratedKnex(CHANGES_SCHEMA, changesMigrations));
  server = await serveModule(await createChangesService({ knex, bus: new InProcessBus(logger), logger }), { name: 'changes', logger });
  writerKnex = createKnex({ connectionString: database.connectionString, schema: CHANGES_SCHEMA, poolMax: 8 });
  writer = new ChangeStore({ knex: writerKnex });
  await writer.append([first]);
  for (const record of appended) await writer.append([record]);
});

afterAll(async () => {
  await server?.close();
  await writerKnex?.destroy();
  await closeDatabase?.();
});

describe('GET /changes?after=<id>', () => {
  it('lists the changes appended after that one, oldest first, whatever their createdAt', async () => {
    expect(await idsAfter(first.id)).toEqual(ids(appended));
    expect(await idsAfter(appended[1]!.id)).toEqual([appended[2]!.id]);
    expect(await idsAfter(appended[2]!.id)).toEqual([]);
  });

  it('pages by limit: the next page starts after the last id of this one', async () => {
    const page = await idsAfter(first.id, '&limit=2');
    expect(page).toEqual(ids(appended.slice(0, 2)));
    expect(await idsAfter(page.at(-1)!, '&limit=2')).toEqual([appended[2]!.id]);
  });

  it('applies the other filters and since as well; the cursor itself need not match them', async () => {
    expect(await idsAfter(first.id, `&programId=${programA}`)).toEqual([appended[0]!.id, appended[2]!.id]);
    expect(await idsAfter(first.id, '&entityType=ROOM')).toEqual([appended[1]!.id]);
    expect(await idsAfter(first.id, '&since=2025-01-01T00:00:00Z')).toEqual(ids(appended.slice(0, 2)));
    expect(await idsAfter(first.id, '&programId=42')).toEqual([]);
  });

  it.each([
    ['an id the log does not hold', randomUUID()],
    ['a malformed id', 'not-a-uuid'],
    ['an empty value', ''],
  ])('refuses %s with 400 VALIDATION_ERROR naming after', async (_case, cursor) => {
    const { status, body } = await get(`/changes?after=${cursor}`);
    expect(status).toBe(400);
    expect(body).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^Query validation failed: after: /), details: expect.any(Object) } });
  });

  it('refuses a bad cursor even beside an unparseable since, which alone answers an empty 200', async () => {
    expect((await get(`/changes?after=${randomUUID()}&since=garbage`)).status).toBe(400);
    expect(await get(`/changes?after=${first.id}&since=garbage`)).toEqual({ status: 200, body: { data: [], error: 'Invalid since timestamp' } });
  });

  it('leaves the listing without a cursor newest first by createdAt', async () => {
    const { body } = await get('/changes');
    expect((body.data as { id: string }[]).map((record) => record.id)).toEqual([first.id, ...ids(appended)]);
  });
});

describe('polling with the cursor while changes are appended concurrently', () => {
  /** The advisory lock an append of a `held-` change waits for, between taking its position and committing. */
  const GATE = 5301;

  // Holds some appends open between taking their positions and committing, as a slow transaction would:
  // `slow-` changes for a moment, `held-` ones until the test opens the gate. A later, quicker append may
  // then commit first; had it the higher position while the slow one is still open, a poller would move past
  // the slow one's position and never see it.
  beforeAll(async () => {
    await knex.raw(`create function hold_append() returns trigger language plpgsql as $$
      begin
        if new.entity_id like 'slow-%' then perform pg_sleep(0.1); end if;
        if new.entity_id like 'held-%' then perform pg_advisory_xact_lock_shared(${GATE}); end if;
        return new;
      end $$`);
    await knex.raw('create trigger hold_append before insert on changes for each row execute function hold_append()');
  });

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const datedAnyTime = () => new Date(Date.UTC(2025, 0, 1) + Math.random() * 86_400_000).toISOString();
  const lastId = async () => (await idsAfter(first.id, '&limit=500')).at(-1) ?? first.id;

  /** Resolves once some session of this database waits for a lock of that kind. */
  async function someoneWaitsFor(lockKind: 'advisory' | 'relation'): Promise<void> {
    for (;;) {
      const { rows } = await knex.raw<{ rows: unknown[] }>(
        `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = ?`,
        [lockKind],
      );
      if (rows.length > 0) return;
      await pause(10);
    }
  }

  it('sees an append that commits after a later one began, and in its place', async () => {
    let cursor = await lastId();
    const gate = await knex.transaction();
    await gate.raw('select pg_advisory_xact_lock(?)', [GATE]);
    const held = change({ entityId: `held-${randomUUID()}` });
    const heldAppend = writer.append([held]);
    await someoneWaitsFor('advisory');
    const quick = [change(), change()];
    const quickAppend = writer.append(quick);
    // The quick append either commits at once or waits for the held one's to end: poll when it is one or the other.
    await Promise.race([quickAppend, someoneWaitsFor('relation')]);
    const seen = await idsAfter(cursor);
    cursor = seen.at(-1) ?? cursor;
    await gate.commit();
    await Promise.all([heldAppend, quickAppend]);
    seen.push(...(await idsAfter(cursor)));
    expect(seen).toEqual([held.id, ...ids(quick)]);
  });

  /** Writers whose appends are held open for a moment before they commit, each for this many appends. */
  const SLOW_WRITERS = 2;
  const SLOW_APPENDS = 10;
  /** Writers that commit small appends quickly, for as long as the slow ones are still appending. */
  const QUICK_WRITERS = 4;
  const PAGE = 7;

  async function appendConcurrently(): Promise<string[]> {
    const written: string[] = [];
    const append = async (records: ChangeEvent[]) => {
      await writer.append(records);
      written.push(...ids(records));
    };
    let slowWriting = SLOW_WRITERS;
    const slow = Array.from({ length: SLOW_WRITERS }, async () => {
      for (let count = 0; count < SLOW_APPENDS; count += 1) {
        await append([change({ entityId: `slow-${randomUUID()}`, createdAt: datedAnyTime() }), change({ createdAt: datedAnyTime() })]);
      }
      slowWriting -= 1;
    });
    const quick = Array.from({ length: QUICK_WRITERS }, async (_, writerIndex) => {
      while (slowWriting > 0) {
        await append(Array.from({ length: 1 + (writerIndex % 3) }, () => change({ createdAt: datedAnyTime() })));
        await pause(5);
      }
    });
    await Promise.all([...slow, ...quick]);
    return written;
  }

  it('sees every change exactly once, in append order, while writers append in parallel', async () => {
    let cursor = await lastId();
    const seen: string[] = [];
    let writing = true;
    const appending = appendConcurrently().finally(() => {
      writing = false;
    });
    for (;;) {
      const wasWriting = writing;
      const page = await idsAfter(cursor, `&limit=${PAGE}`);
      seen.push(...page);
      cursor = page.at(-1) ?? cursor;
      // Done once a poll that began after the last append returned a short page.
      if (!wasWriting && page.length < PAGE) break;
    }
    const written = await appending;
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...written].sort());
    const positions: { id: string; position: number }[] = await knex('changes').whereIn('id', seen).select('id', 'position');
    const positionOf = new Map(positions.map((row) => [row.id, row.position]));
    const inOrder = seen.map((id) => positionOf.get(id) ?? -1);
    expect(inOrder).toEqual([...inOrder].sort((a, b) => a - b));
  });
});
