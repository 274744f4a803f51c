import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentHash, stableStringify } from '../src/features/diff/content-hash.js';
import { diffSnapshots, type SnapshotEntry } from '../src/features/diff/diff-snapshots.js';

const jsonValue = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>;
const data = fc.dictionary(fc.constantFrom('name', 'code', 'roomIds', 'note', 'capacity', 'tags'), jsonValue, { maxKeys: 6 });
const snapshot = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), data, { maxKeys: 6 });

const asPrevious = (entries: Record<string, Record<string, unknown>>): Map<string, SnapshotEntry> =>
  new Map(Object.entries(entries).map(([id, value]) => [`course:${id}`, { entityType: 'course', entityId: id, data: value, contentHash: contentHash(value) }]));
const asNext = (entries: Record<string, Record<string, unknown>>) =>
  new Map(Object.entries(entries).map(([id, value]) => [`course:${id}`, { entityType: 'course' as const, entityId: id, data: value }]));

describe('content hash', () => {
  it('ignores key order', () => {
    expect(contentHash({ a: 1, b: { c: [1, 2], d: null } })).toBe(contentHash({ b: { d: null, c: [1, 2] }, a: 1 }));
    expect(stableStringify({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });
});

describe('diffing is exact', () => {
  it('replaying the changes on the previous snapshot gives the next one, and nothing else is reported', () => {
    fc.assert(
      fc.property(snapshot, snapshot, (before, after) => {
        const changes = diffSnapshots(asPrevious(before), asNext(after));
        const replayed = new Map(Object.entries(before).map(([id, value]) => [id, stableStringify(value)]));
        for (const change of changes) {
          if (change.action === 'deleted') {
            expect(replayed.has(change.entityId)).toBe(true);
            replayed.delete(change.entityId);
          } else {
            expect(replayed.has(change.entityId)).toBe(change.action === 'updated');
            replayed.set(change.entityId, stableStringify(change.newData));
          }
        }
        expect(Object.fromEntries(replayed)).toEqual(Object.fromEntries(Object.entries(after).map(([id, value]) => [id, stableStringify(value)])));
        for (const change of changes) {
          if (change.action !== 'updated') {
            expect(change.changedFields).toEqual([]);
            continue;
          }
          const previous = before[change.entityId] ?? {};
          const next = after[change.entityId] ?? {};
          expect(change.changedFields.length).toBeGreaterThan(0);
          for (const key of new Set([...Object.keys(previous), ...Object.keys(next)])) {
            const show = (value: Record<string, unknown>) => (key in value ? stableStringify(value[key]) : '<absent>');
            const differs = show(previous) !== show(next);
            expect(change.changedFields.includes(key)).toBe(differs);
          }
        }
        const unchanged = Object.keys(after).filter((id) => id in before && stableStringify(before[id]) === stableStringify(after[id]));
        for (const id of unchanged) expect(changes.some((change) => change.entityId === id)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
