import { describe, expect, it } from 'vitest';
import { mapConcurrently } from '../src/features/read/map-concurrently.js';

describe('mapConcurrently', () => {
  it('keeps the input order with work in flight at once', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapConcurrently([5, 1, 4, 2, 3], 2, async (item) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, item));
      inFlight -= 1;
      return item * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('starts nothing after a failure and rejects only once the work in flight has ended', async () => {
    const started: number[] = [];
    const ended: number[] = [];
    const outcome = mapConcurrently([1, 2, 3, 4, 5, 6], 3, async (item) => {
      started.push(item);
      await new Promise((resolve) => setTimeout(resolve, item === 1 ? 1 : 30));
      if (item === 1) throw new Error('item 1 failed');
      ended.push(item);
      return item;
    });
    await expect(outcome).rejects.toThrow('item 1 failed');
    expect(started).toEqual([1, 2, 3]);
    expect(ended.sort()).toEqual([2, 3]);
  });
});
