/** Minimal reading of a feed for assertions: unfold, split VEVENTs, unescape TEXT. */

export function unfold(text: string): string[] {
  return text.replace(/\r\n[ \t]/g, '').split('\r\n').filter((line) => line !== '');
}

export function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_, character: string) => (character.toLowerCase() === 'n' ? '\n' : character));
}

export type FeedEvent = Record<string, string>;

/** Properties by name (parameters dropped, DTSTART keeps its TZID as `DTSTART;TZID`). */
export function eventsOf(text: string): FeedEvent[] {
  const events: FeedEvent[] = [];
  let current: FeedEvent | undefined;
  for (const line of unfold(text)) {
    if (line === 'BEGIN:VEVENT') current = {};
    else if (line === 'END:VEVENT' && current) {
      events.push(current);
      current = undefined;
    } else if (current) {
      const colon = line.indexOf(':');
      current[line.slice(0, colon)] = line.slice(colon + 1);
    }
  }
  return events;
}

/** `20240325T080000` -> `2024-03-25T08:00:00` */
export function isoLocal(basic: string): string {
  return basic.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/, '$1-$2-$3T$4:$5:$6');
}
