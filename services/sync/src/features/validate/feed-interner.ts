/**
 * One copy of each distinct value of a feed, detached from the feed's text. Most values repeat in every
 * week's VEVENT, and a value sliced out of the text would keep the whole text alive: without this a parsed
 * occurrence held about 1.5 kB, which at scale 100 (800k occurrences) was over a gigabyte.
 */
export interface FeedInterner {
  text(value: string): string;
  /** The same array for the same values: occurrences share it, and nothing may modify it. */
  list(values: string[]): string[];
}

export function feedInterner(): FeedInterner {
  const texts = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const text = (value: string): string => {
    let kept = texts.get(value);
    if (kept === undefined) {
      kept = JSON.parse(JSON.stringify(value)) as string;
      texts.set(kept, kept);
    }
    return kept;
  };
  return {
    text,
    list(values) {
      const key = values.map(text).join('\u0000');
      let kept = lists.get(key);
      if (kept === undefined) {
        kept = values.map(text);
        lists.set(key, kept);
      }
      return kept;
    },
  };
}
