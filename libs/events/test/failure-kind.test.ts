import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { failureOf } from '@timetable/events/testing';

/**
 * Which handler errors may put a record aside: only those that say the record's data is refused. The
 * PostgreSQL errors here have the shape pg gives them (a SQLSTATE `code` and a `severity`); the real ones,
 * raised by a real server, are in failure-kind.int.test.ts.
 */
const postgresError = (code: string) => Object.assign(new Error(`postgres says ${code}`), { code, severity: 'ERROR' });
const networkError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });

describe('errors that say the record is refused for its data', () => {
  it.each([
    ['22003', 'numeric value out of range'],
    ['22P02', 'invalid text representation'],
    ['22008', 'datetime field overflow'],
    ['22021', 'character not in repertoire (a NUL in text)'],
    ['23505', 'unique violation'],
    ['23503', 'foreign key violation'],
    ['23514', 'check violation'],
  ])('SQLSTATE %s (%s) is data', (code) => {
    expect(failureOf(postgresError(code))).toEqual({ kind: 'data', reason: `sqlstate ${code}` });
  });

  it('a zod validation error is data', () => {
    const parsed = z.object({ capacity: z.number().int() }).safeParse({ capacity: 'forty' });
    expect(failureOf(parsed.error)).toEqual({ kind: 'data', reason: 'validation' });
  });

  it('a data error wrapped as the cause of another is data', () => {
    expect(failureOf(new Error('projection failed', { cause: postgresError('23505') })).kind).toBe('data');
  });
});

describe('errors that say something the handler needs is away', () => {
  it.each([
    ['08006', 'connection failure'],
    ['53300', 'too many connections'],
    ['53100', 'disk full'],
    ['57P01', 'admin shutdown'],
    ['57014', 'statement cancelled or timed out'],
    ['58030', 'I/O error'],
    ['XX000', 'internal error'],
  ])('SQLSTATE %s (%s) is infrastructure', (code) => {
    expect(failureOf(postgresError(code))).toEqual({ kind: 'infrastructure', reason: `sqlstate ${code}` });
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'])('the network error %s is infrastructure', (code) => {
    expect(failureOf(networkError(code))).toEqual({ kind: 'infrastructure', reason: code });
  });

  it("knex's timeout waiting for a connection is infrastructure", () => {
    const timeout = Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' });
    expect(failureOf(timeout)).toEqual({ kind: 'infrastructure', reason: 'timeout' });
  });
});

describe('errors nobody recognises', () => {
  it.each([
    ['a plain error', new Error('Connection terminated unexpectedly')],
    ['a RangeError', new RangeError('Invalid time value')],
    ['a SQLSTATE of another class (42P01: undefined table)', postgresError('42P01')],
    ['a deadlock (40P01)', postgresError('40P01')],
    ['a thrown string', 'something broke'],
    ['undefined', undefined],
    ['a five-character code without a severity', Object.assign(new Error('not from PostgreSQL'), { code: '22003' })],
  ])('%s is infrastructure: a record is never put aside on a guess', (_name, error) => {
    expect(failureOf(error).kind).toBe('infrastructure');
  });
});
