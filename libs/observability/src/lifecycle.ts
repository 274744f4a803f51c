/**
 * What every entry point (HTTP server, consumer, job) offers to its composition root:
 * start, a draining stop, and a cheap health answer for /ready.
 */
export interface Lifecycle {
  start(): Promise<void>;
  stop(): Promise<void>;
  isHealthy(): boolean;
}
