/**
 * Exports of a rendered feed. An export writes its UID prefix and stamp over the template's own bytes and sends
 * them, so serving a kept feed allocates next to nothing (encode/group-calendar.ts says what a copy an answer
 * cost). While one answer is still sending those bytes, another export of the same feed gets a copy instead:
 * writing over bytes being sent would mix two exports' UIDs in one answer. The bytes are free again once the
 * response closes, which it does after its last byte went to the socket or when its connection ended: in
 * neither case will they be read again.
 */
import { fillGroupCalendar, fillGroupCalendarInPlace, type CalendarTemplate } from '../encode/group-calendar.js';

export interface ExportableFeed {
  readonly template: CalendarTemplate;
  /** An answer is sending the template's own bytes. */
  sending: boolean;
}

export function exportableFeed(template: CalendarTemplate): ExportableFeed {
  return { template, sending: false };
}

/** What an export needs of the response that sends it: to hear when it closes. */
export interface ClosingResponse {
  once(event: 'close', listener: () => void): unknown;
}

/** The bytes of one export of `feed`, to be sent as `res`'s body. */
export function exportFeed(feed: ExportableFeed, res: ClosingResponse, now: Date): Buffer {
  if (feed.sending) return fillGroupCalendar(feed.template, now);
  feed.sending = true;
  res.once('close', () => {
    feed.sending = false;
  });
  return fillGroupCalendarInPlace(feed.template, now);
}
