import { describe, expect, it } from 'vitest';
import { KeptAnswers } from '../src/http/kept-answers.js';

/** Answers are strings here; their size is their length. */
function keeper(limit: number) {
  const built: string[] = [];
  const kept = new KeptAnswers<string>(limit, (answer) => answer.length);
  const get = (version: string, key: string, answer = `${key}@${version}`) =>
    kept.get(version, key, () => {
      built.push(key);
      return answer;
    });
  return { get, built };
}

describe('kept answers', () => {
  it('builds an answer once per version and key', () => {
    const { get, built } = keeper(1000);
    expect(get('v1', 'a')).toBe('a@v1');
    expect(get('v1', 'a')).toBe('a@v1');
    expect(get('v1', 'b')).toBe('b@v1');
    expect(built).toEqual(['a', 'b']);
  });

  it('drops every kept answer when the version moves', () => {
    const { get, built } = keeper(1000);
    get('v1', 'a');
    expect(get('v2', 'a')).toBe('a@v2');
    expect(get('v2', 'a')).toBe('a@v2');
    expect(built).toEqual(['a', 'a']);
  });

  it('keeps no more than its limit: once full, it builds and serves new answers without keeping them', () => {
    const { get, built } = keeper(10);
    get('v1', 'a', 'x'.repeat(6));
    get('v1', 'b', 'y'.repeat(6)); // 12 > 10: served, not kept
    get('v1', 'b', 'y'.repeat(6));
    get('v1', 'a');
    get('v1', 'huge', 'z'.repeat(11));
    get('v1', 'huge', 'z'.repeat(11));
    expect(built).toEqual(['a', 'b', 'b', 'huge', 'huge']);
  });

  it('makes room again when the version moves', () => {
    const { get, built } = keeper(10);
    get('v1', 'a', 'x'.repeat(6));
    get('v1', 'b', 'y'.repeat(6));
    get('v2', 'b', 'y'.repeat(6));
    get('v2', 'b', 'y'.repeat(6));
    expect(built).toEqual(['a', 'b', 'b']);
  });
});
