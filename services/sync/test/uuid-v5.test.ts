import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { uuidV5 } from '../src/features/normalise/uuid-v5.js';
import { programIdOf, semesterIdOf } from '../src/features/normalise/upstream-ids.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('UUIDv5', () => {
  it('matches the RFC 4122 reference value', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
    expect(uuidV5('python.org', DNS_NAMESPACE)).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('is deterministic, versioned and distinct per key', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const id = uuidV5(a);
        expect(uuidV5(a)).toBe(id);
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        if (a !== b) expect(uuidV5(b)).not.toBe(id);
      }),
    );
  });

  it('keys ids by upstream kind, so og 35 and pg 35 differ', () => {
    expect(programIdOf(35)).not.toBe(semesterIdOf(35));
    expect(createHash('sha1').update('x').digest('hex')).toHaveLength(40);
  });
});
