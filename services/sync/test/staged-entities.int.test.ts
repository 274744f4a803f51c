/**
 * What a run builds that differs from the snapshot waits in `staged_entities` until its transaction writes it
 * (the run then holds keys and hashes, not every entity's data). The store writes in the background, so a
 * failed write must surface, and must not poison the next run.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from '@timetable/db';
import { createMigratedKnex } from '@timetable/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../src/features/write/snapshot-store.js';
import { StagedEntityStore, type StagedEntity } from '../src/features/write/staged-entity-store.js';
import { SYNC_SCHEMA, syncMigrations } from '../src/migrations/index.js';

let knex: Knex;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ knex, close } = await createMigratedKnex(SYNC_SCHEMA, syncMigrations));
});

afterAll(async () => {
  await close();
});

const course = (name: string): StagedEntity => {
  const id = randomUUID();
  return { entityType: 'course', entityId: id, data: { id, name } };
};
const stagedCount = async () => Number((await knex('staged_entities').count<{ count: string }[]>({ count: '*' }))[0]?.count);

describe('the staging table', () => {
  it('holds every added entity once flushed, and gives back the data of the keys asked for', async () => {
    const staged = new StagedEntityStore({ knex });
    await staged.begin(randomUUID());
    const entities = Array.from({ length: 1_234 }, (_, index) => course(`course ${index}`));
    for (let index = 0; index < entities.length; index += 100) await staged.add(entities.slice(index, index + 100));
    await staged.flush();
    expect(await stagedCount()).toBe(entities.length);
    const asked = [entities[0]!, entities[777]!, entities[1_233]!];
    const loaded = await staged.load(knex, [...asked, { entityType: 'event', entityId: entities[1]!.entityId }]);
    expect(new Map([...loaded].map(([key, data]) => [key, data.name]))).toEqual(
      new Map(asked.map((entity) => [`course:${entity.entityId}`, entity.data.name])),
    );
  });

  it('a failed background write rejects the flush; clear deletes what the run staged, and the next run stages again', async () => {
    const staged = new StagedEntityStore({ knex });
    await staged.begin(randomUUID());
    // PostgreSQL's jsonb refuses a NUL character, so the batch holding this entity cannot be written.
    const refused = { ...course('refused'), data: { name: 'nul \u0000 inside' } };
    await staged.add([refused, ...Array.from({ length: 600 }, (_, index) => course(`before ${index}`))]);
    await expect(staged.flush()).rejects.toThrow(/unicode|\\u0000|escape/i);
    await staged.clear();
    expect(await stagedCount()).toBe(0);
    await expect(staged.add([course('no run')])).rejects.toThrow('staged entities used outside a run');
    await staged.begin(randomUUID());
    await staged.add([course('after')]);
    await staged.flush();
    expect(await stagedCount()).toBe(1);
  });
});

describe('the index of the last snapshot', () => {
  it('reads key, hash and scopes of every entity, and the data only of the types and scopes asked for', async () => {
    const row = (entity_type: string, name: string, scopes: string[]) => ({
      entity_type,
      entity_id: randomUUID(),
      data: JSON.stringify({ name }),
      content_hash: name.padEnd(64, '0'),
      scopes,
      updated_at: new Date(),
    });
    const rows = [
      row('program', 'p35', []),
      row('instructor', 'failed program', ['og:35']),
      row('instructor', 'other program', ['og:36']),
      row('course', 'course of the failed program', ['og:35']),
    ];
    await knex('snapshot_entities').insert(rows);
    const index = await new SnapshotStore({ knex }).loadIndex([{ entityType: 'program' }, { entityType: 'instructor', scopes: ['og:35'] }]);
    const byName = new Map([...index.values()].map((entity) => [entity.contentHash, entity]));
    const names = rows.map((entry) => JSON.parse(entry.data).name as string);
    expect(names.map((name) => byName.get(name.padEnd(64, '0'))?.data?.name ?? null)).toEqual(['p35', 'failed program', null, null]);
    expect(byName.get('failed program'.padEnd(64, '0'))?.scopes).toEqual(['og:35']);
    const bare = await new SnapshotStore({ knex }).loadIndex();
    expect([...bare.values()].filter((entity) => rows.some((entry) => entry.entity_id === entity.entityId)).map((entity) => entity.data)).toEqual([null, null, null, null]);
  });

  it("gives a run back only what it staged itself, never another run's data for the same entity", async () => {
    // Two runs at once happen only when the run lock's session ended during the first; each must miss, not
    // take, what the other staged.
    const first = new StagedEntityStore({ knex });
    const second = new StagedEntityStore({ knex });
    const shared = course('as the first run read it');
    await first.begin(randomUUID());
    const earlier = course('staged by the first run before the second began');
    await first.add([earlier]);
    await first.flush();
    await second.begin(randomUUID());
    await first.add([shared]);
    await first.flush();
    await second.add([{ ...shared, data: { ...shared.data, name: 'as the second run read it' } }]);
    await second.flush();
    const key = `course:${shared.entityId}`;
    expect((await first.load(knex, [shared, earlier])).get(key)?.name).toBe('as the first run read it');
    expect((await second.load(knex, [shared, earlier])).get(key)?.name).toBe('as the second run read it');
    // The second's start emptied the table: the first's earlier row is gone, for both.
    expect((await first.load(knex, [earlier])).size).toBe(0);
    expect((await second.load(knex, [earlier])).size).toBe(0);
    // The end of one run deletes its own rows only.
    await first.clear();
    expect((await second.load(knex, [shared])).get(key)?.name).toBe('as the second run read it');
    expect(await stagedCount()).toBe(1);
  });
});
