import type { UsageStore } from './usage-store.js';

/** Usage events are kept this long: three times the 30-day usage report, then deleted by a periodic job. */
export const USAGE_RETENTION_DAYS = 90;
const DAY_MS = 86_400_000;

export function deleteExpiredUsage(store: UsageStore, now: Date): Promise<number> {
  return store.deleteBefore(new Date(now.getTime() - USAGE_RETENTION_DAYS * DAY_MS));
}
