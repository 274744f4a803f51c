export { createLogger, type Logger, type LoggerSettings } from './logger.js';
export { metricsRegistry, counter, gauge, histogram } from './metrics-registry.js';
export type { Lifecycle } from './lifecycle.js';
export { PeriodicJob, type PeriodicJobOptions } from './periodic-job.js';
