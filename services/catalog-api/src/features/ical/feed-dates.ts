import { createHash } from 'node:crypto';
import type { Logger } from '@timetable/observability';
import type { DatedBody } from '../../http/response-cache.js';
import type { FeedDatesStore } from './feed-dates-store.js';

/** A rendered feed and the newest change of any event in it (null when it holds none). */
export interface RenderedFeed {
  text: string;
  newestChange: Date | null;
}

/** A feed not rendered for this long is forgotten; its clients download it once more when they come back. */
export const FEED_DATE_RETENTION_MS = 7 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface FeedDatesDeps {
  store: Pick<FeedDatesStore, 'date' | 'prune'>;
  now: () => Date;
  logger: Logger;
}

const hashOf = (text: string) => createHash('sha1').update(text).digest('base64url');
const wholeSecond = (instant: number) => new Date(instant - (instant % 1000));

/**
 * Gives each feed its Last-Modified, so that a client revalidating with If-Modified-Since gets a 304 only
 * when the feed's content is the one it holds. The date is the newest change of any event in the feed. A
 * feed can also change while no event in it does (an event is deleted or moves out of the selection, a room
 * or course is renamed, the 365-day window moves on, or the events of one sync arrive in two projections);
 * the date must move on then as well, so each feed's date is stored with a fingerprint of its content, and new
 * content gets the newest change only when that is later than the date it had, otherwise the second it is
 * first served in. So dates only ever grow, and differ for different contents (down to HTTP's one second: when
 * the content changes twice within a second the later one has no Last-Modified until that second has passed).
 * An empty feed has no event to date it: it is dated by the second it is first served empty. A date is never
 * later than the newest change's own second or the answer's time.
 */
export class FeedDates {
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: FeedDatesDeps) {}

  async dated(feedKey: string, feed: RenderedFeed): Promise<DatedBody> {
    const now = this.deps.now();
    const thisSecond = wholeSecond(now.getTime());
    const newestChange = feed.newestChange === null ? null : wholeSecond(Math.min(feed.newestChange.getTime(), now.getTime()));
    await this.pruneNowAndThen(now);
    try {
      const date = await this.deps.store.date({ keyHash: hashOf(feedKey), fingerprint: hashOf(feed.text), newestChange, thisSecond, servedAt: now });
      return { body: feed.text, lastModified: date <= now ? date : null };
    } catch (error) {
      // Without a date the feed is still served, and If-Modified-Since is not evaluated: a 200 is always right.
      this.deps.logger.warn({ err: error }, 'feed date unavailable');
      return { body: feed.text, lastModified: null };
    }
  }

  private async pruneNowAndThen(now: Date): Promise<void> {
    if (now.getTime() - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now.getTime();
    try {
      await this.deps.store.prune(new Date(now.getTime() - FEED_DATE_RETENTION_MS));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'pruning feed dates failed');
    }
  }
}
