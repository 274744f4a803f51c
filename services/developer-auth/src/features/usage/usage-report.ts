import type { EndpointCount, UsageStore } from './usage-store.js';

export const USAGE_PERIOD_DAYS = 30;
export const USAGE_TOP_ENDPOINTS = 10;
const DAY_MS = 86_400_000;

export interface UsageReport {
  total: number;
  byEndpoint: EndpointCount[];
  period: { from: string; to: string };
}

/** The spec's usage view: the trailing 30 days up to now, the 10 busiest endpoints (ties by name). */
export async function usageReport(store: UsageStore, developerId: string, now: Date): Promise<UsageReport> {
  const from = new Date(now.getTime() - USAGE_PERIOD_DAYS * DAY_MS);
  const { total, byEndpoint } = await store.summarise(developerId, from, now, USAGE_TOP_ENDPOINTS);
  return { total, byEndpoint, period: { from: from.toISOString(), to: now.toISOString() } };
}
