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

  it('keeps no more than its limit: what would pass it drops the rest first, and an answer above it is never kept', () => {
    const { get, built } = keeper(10);
    get('v1', 'a', 'x'.repeat(6));
    get('v1', 'b', 'y'.repeat(6)); // 12 > 10: 'a' is dropped, 'b' kept
    get('v1', 'b');
    get('v1', 'a', 'x'.repeat(6));
    get('v1', 'huge', 'z'.repeat(11));
    get('v1', 'huge', 'z'.repeat(11));
    expect(built).toEqual(['a', 'b', 'a', 'huge', 'huge']);
  });
});
