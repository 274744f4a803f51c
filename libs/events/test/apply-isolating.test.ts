import { describe, expect, it } from 'vitest';
import type { IncomingEvent } from '@timetable/events';
import { applyIsolating, RECORD_ATTEMPTS } from '@timetable/events/testing';

/**
 * How a batch with a record its handler cannot apply is handled: the record is found, tried a bounded number
 * of times, returned to be put aside, and every other record is applied; an outage is never mistaken for it.
 */
const refused = (value: number) => Object.assign(new Error(`value ${value} out of range for type integer`), { code: '22003', severity: 'ERROR' });
const refusedConnection = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' });
const fast = { firstDelayMs: 0 };

function eventsOf(values: number[]): IncomingEvent<number>[] {
  return values.map((value, index) => ({ topic: 't', key: `k${value}`, value, headers: {}, partition: 0, offset: String(index) }));
}

/** A store that applies a batch atomically, as a transaction does, and refuses values above the column's range. */
function integerColumn(options: { failuresBeforeRefusing?: number } = {}) {
  const applied: number[] = [];
  const batches: number[][] = [];
  let outages = options.failuresBeforeRefusing ?? 0;
  return {
    applied,
    batches,
    async handle(events: IncomingEvent<number>[]): Promise<void> {
      const values = events.map((event) => event.value!);
      batches.push(values);
      if (outages > 0) {
        outages -= 1;
        throw refusedConnection();
      }
      const tooLarge = values.find((value) => value > 2_147_483_647);
      if (tooLarge !== undefined) throw refused(tooLarge);
      applied.push(...values);
    },
  };
}

describe('a batch whose data is all accepted', () => {
  it('is applied in one call and nothing is put aside', async () => {
    const store = integerColumn();
    expect(await applyIsolating(eventsOf([1, 2, 3]), (events) => store.handle(events), fast)).toEqual([]);
    expect(store.batches).toEqual([[1, 2, 3]]);
  });
});

describe('a batch with a record whose data is refused', () => {
  it('applies the records before and after it and returns it, tried RECORD_ATTEMPTS times on its own', async () => {
    const store = integerColumn();
    const putAside = await applyIsolating(eventsOf([1, 2, 3_000_000_000, 4, 5]), (events) => store.handle(events), fast);
    expect(store.applied).toEqual([1, 2, 4, 5]);
    expect(putAside.map((record) => record.event.value)).toEqual([3_000_000_000]);
    expect(putAside[0]?.attempts).toBe(RECORD_ATTEMPTS);
    expect(String(putAside[0]?.error)).toMatch(/out of range/);
    expect(store.batches.filter((batch) => batch.length === 1 && batch[0] === 3_000_000_000)).toHaveLength(RECORD_ATTEMPTS);
    // Once it is found, the records after it are tried together again.
    expect(store.batches).toContainEqual([4, 5]);
  });

  it('finds every such record of a batch', async () => {
    const store = integerColumn();
    const putAside = await applyIsolating(eventsOf([3_000_000_001, 1, 3_000_000_002, 2]), (events) => store.handle(events), fast);
    expect(putAside.map((record) => record.event.value)).toEqual([3_000_000_001, 3_000_000_002]);
    expect(store.applied).toEqual([1, 2]);
  });

  it('applies a record whose data is accepted on a later try (a race with another replica) and puts nothing aside', async () => {
    let refusals = RECORD_ATTEMPTS - 1;
    const applied: number[] = [];
    const putAside = await applyIsolating(eventsOf([7]), async (events) => {
      if (refusals-- >= 0) throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', severity: 'ERROR' });
      applied.push(...events.map((event) => event.value!));
    }, fast);
    expect(putAside).toEqual([]);
    expect(applied).toEqual([7]);
  });

  it('puts nothing aside when only the batch as a whole was refused', async () => {
    const applied: number[] = [];
    const putAside = await applyIsolating(eventsOf([1, 1]), async (events) => {
      // Two records that conflict with each other in one statement; each alone is fine.
      if (events.length > 1) throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', severity: 'ERROR' });
      applied.push(events[0]!.value!);
    }, fast);
    expect(putAside).toEqual([]);
    expect(applied).toEqual([1, 1]);
  });

  it('calls afterRecord after every record tried on its own, so a Kafka consumer keeps its batch', async () => {
    const store = integerColumn();
    let beats = 0;
    await applyIsolating(eventsOf([1, 3_000_000_000, 2]), (events) => store.handle(events), { ...fast, afterRecord: async () => void beats++ });
    expect(beats).toBe(2);
  });
});

describe('an infrastructure failure', () => {
  it('is thrown at once, without trying records on their own, so the caller retries the batch', async () => {
    const store = integerColumn({ failuresBeforeRefusing: 1 });
    await expect(applyIsolating(eventsOf([1, 2]), (events) => store.handle(events), fast)).rejects.toThrow(/ECONNREFUSED/);
    expect(store.batches).toEqual([[1, 2]]);
  });

  it('is thrown when it happens while records are tried on their own, and nothing is put aside', async () => {
    let calls = 0;
    const attempt = applyIsolating(eventsOf([1, 3_000_000_000]), async () => {
      calls += 1;
      throw calls === 1 ? refused(3_000_000_000) : refusedConnection();
    }, fast);
    await expect(attempt).rejects.toThrow(/ECONNREFUSED/);
  });

  it('is never mistaken for refused data, however often it repeats', async () => {
    const store = integerColumn({ failuresBeforeRefusing: 10 });
    for (let retry = 0; retry < 10; retry += 1) {
      await expect(applyIsolating(eventsOf([3]), (events) => store.handle(events), fast)).rejects.toThrow(/ECONNREFUSED/);
    }
    expect(await applyIsolating(eventsOf([3]), (events) => store.handle(events), fast)).toEqual([]);
    expect(store.applied).toEqual([3]);
  });
});
