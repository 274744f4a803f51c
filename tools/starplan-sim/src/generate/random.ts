/** Seeded PRNG (mulberry32): the same seed gives the same university, byte for byte. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('cannot pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Up to `count` distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const wanted = Math.min(count, items.length);
    const chosen = new Set<number>();
    const result: T[] = [];
    if (wanted * 2 > items.length) {
      const copy = [...items];
      while (result.length < wanted) result.push(copy.splice(Math.floor(this.next() * copy.length), 1)[0] as T);
      return result;
    }
    // Few out of many: draw indices and retry duplicates instead of copying the list.
    while (result.length < wanted) {
      const index = Math.floor(this.next() * items.length);
      if (chosen.has(index)) continue;
      chosen.add(index);
      result.push(items[index] as T);
    }
    return result;
  }

  /** A child generator, so adding draws in one part of the generation does not shift another. */
  fork(salt: number): Random {
    return new Random(Math.imul(this.state ^ salt, 2654435761) ^ (salt << 7));
  }
}
