import type { UsageEvent } from '@timetable/contracts';

export interface EndpointCount {
  endpoint: string;
  _count: number;
}

export interface UsageStore {
  /** Inserts events whose id is new; redelivered ones are ignored. */
  record(events: UsageEvent[]): Promise<void>;
  /** Requests of one developer with from <= occurredAt <= to: the total and the `top` busiest endpoints. */
  summarise(developerId: string, from: Date, to: Date, top: number): Promise<{ total: number; byEndpoint: EndpointCount[] }>;
  /** Deletes events that occurred before `cutoff`; returns how many. */
  deleteBefore(cutoff: Date): Promise<number>;
}
