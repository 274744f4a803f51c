import { describe, expect, it } from 'vitest';
import { changeListQuery } from '@timetable/contracts/testing';
import { parseInput, ValidationError } from '@timetable/http';
import { changeListRequest, INVALID_SINCE, parseInstant } from '../src/features/change-log/change-list-query.js';

/** What GET /changes does with its query: the contract's schema, then the request it describes. */
const parseChangeListQuery = (query: Record<string, string>) => changeListRequest(parseInput(changeListQuery, query, 'Query'));

const UUID = '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f';

function filterOf(query: Record<string, string>) {
  const request = parseChangeListQuery(query);
  if (request.kind !== 'query') throw new Error(`expected a query, got ${JSON.stringify(request)}`);
  return request.filter;
}

describe('since is an ISO 8601 instant', () => {
  it.each([
    ['2025-03-01T10:15:30Z', '2025-03-01T10:15:30.000Z'],
    ['2025-03-01T10:15:30.123Z', '2025-03-01T10:15:30.123Z'],
    ['2025-03-01T11:15:30+01:00', '2025-03-01T10:15:30.000Z'],
    ['2025-03-01T11:15:30+0100', '2025-03-01T10:15:30.000Z'],
    ['2025-03-01T10:15Z', '2025-03-01T10:15:00.000Z'],
    ['2025-03-01T10:15:30', '2025-03-01T10:15:30.000Z'],
    ['2025-03-01', '2025-03-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseInstant(text)?.toISOString()).toBe(iso);
  });

  it.each(['yesterday', '', '2025-02-30T00:00:00Z', '2025-13-01', '2025-03-01T25:00:00Z', '1700000000', 'not-a-date'])(
    'rejects %j',
    (text) => {
      expect(parseInstant(text)).toBeNull();
    },
  );

  it('an unparseable since is the empty answer with the spec error, not a 400', () => {
    expect(parseChangeListQuery({ since: 'garbage' })).toEqual({ kind: 'empty', error: INVALID_SINCE });
  });
});

describe('limit', () => {
  it('defaults to 100', () => {
    expect(filterOf({}).limit).toBe(100);
  });

  it('caps values above 500 at 500', () => {
    expect(filterOf({ limit: '501' }).limit).toBe(500);
    expect(filterOf({ limit: '100000' }).limit).toBe(500);
    expect(filterOf({ limit: '500' }).limit).toBe(500);
  });

  it.each(['0', '-1', '1.5', 'ten', '', '1e2'])('rejects %j with a validation error', (limit) => {
    expect(() => parseChangeListQuery({ limit })).toThrow(ValidationError);
  });
});

describe('id filters', () => {
  it('passes well-formed ids through', () => {
    expect(filterOf({ programId: UUID, semesterId: UUID, courseId: UUID })).toMatchObject({ programId: UUID, semesterId: UUID, courseId: UUID });
  });

  it.each(['programId', 'semesterId', 'courseId'])('a malformed %s matches nothing', (name) => {
    expect(parseChangeListQuery({ [name]: 'not-a-uuid' })).toEqual({ kind: 'empty' });
  });
});

describe('after', () => {
  it('must be a well-formed id: anything else is a validation error naming after, not an empty answer', () => {
    for (const after of ['not-a-uuid', '', '42']) expect(() => parseChangeListQuery({ after })).toThrow(/^Query validation failed: after: /);
  });

  it('turns the resolved cursor into an oldest-first listing after its position, beside the other filters', () => {
    const request = changeListRequest(parseInput(changeListQuery, { after: UUID, programId: UUID, limit: '5' }, 'Query'), 41);
    expect(request).toEqual({ kind: 'query', filter: { afterPosition: 41, programId: UUID, limit: 5 } });
    expect(filterOf({})).not.toHaveProperty('afterPosition');
  });
});
