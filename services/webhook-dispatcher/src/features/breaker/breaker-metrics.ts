import { gauge } from '@timetable/observability';
import type { BreakerState } from './endpoint-breakers.js';

type StateSource = () => BreakerState[];
const sources = new Set<StateSource>();

/**
 * Breakers counted by state, summed over every dispatcher in the process. No webhook or host label on
 * purpose: a label per webhook would be a series per webhook (thousands, and new ones with every webhook
 * created), and in embedded mode /metrics is served on the public port, where which endpoints other
 * developers deliver to is nobody's business. Which webhook tripped is in the warn log line written when
 * its breaker opens.
 */
const breakers = gauge({
  name: 'webhook_breakers',
  help: 'Circuit breakers of subscriber endpoints (webhooks), by state (closed, half_open, open)',
  labelNames: ['state'],
  collect() {
    const counts: Record<BreakerState, number> = { closed: 0, half_open: 0, open: 0 };
    for (const source of sources) for (const state of source()) counts[state] += 1;
    for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
  },
});

export const breakerCounts = {
  /** Adds a dispatcher's breakers to the metric; the returned function removes them. */
  register(source: StateSource): () => void {
    sources.add(source);
    return () => sources.delete(source);
  },
  gauge: breakers,
};
