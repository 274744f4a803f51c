/**
 * Exports of a rendered feed. An export writes its UID prefix and stamp over the template's own bytes and sends
 * them, so serving a kept feed allocates next to nothing (encode/group-calendar.ts says what a copy an answer
 * cost). While another answer still holds those bytes, an export gets a copy instead: writing over bytes an
 * answer has yet to send would mix two exports' UIDs in one answer. The holder lets go when its response
 * closes, which it does once its last byte went to the socket, or when its connection ends while it is being
 * sent. An answer waiting its turn behind another on the same connection (pipelined requests) never closes if
 * that connection ends first; it lets go then too, since nothing will be written to an ended connection.
 * The bytes must be taken in the same turn of the event loop as they are handed to the response.
 */
import { fillGroupCalendar, fillGroupCalendarInPlace, type CalendarTemplate } from '../encode/group-calendar.js';

/** What an export needs of the answer that sends it. */
export interface SendingAnswer {
  once(event: 'close', listener: () => void): unknown;
  /** Whether the connection it goes out on has ended. */
  connectionEnded(): boolean;
}

export interface ExportableFeed {
  readonly template: CalendarTemplate;
  /** The answer that holds the template's own bytes, if any. */
  holder: SendingAnswer | undefined;
}

export function exportableFeed(template: CalendarTemplate): ExportableFeed {
  return { template, holder: undefined };
}

/** The bytes of one export of `feed`, to be sent by `answer`. */
export function exportFeed(feed: ExportableFeed, answer: SendingAnswer, now: Date): Buffer {
  if (feed.holder !== undefined && !feed.holder.connectionEnded()) return fillGroupCalendar(feed.template, now);
  feed.holder = answer;
  answer.once('close', () => {
    // A later answer may hold the bytes by now (this one's connection ended first): only the holder lets go.
    if (feed.holder === answer) feed.holder = undefined;
  });
  return fillGroupCalendarInPlace(feed.template, now);
}
