import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CounterConfiguration, GaugeConfiguration, HistogramConfiguration } from 'prom-client';

/**
 * One registry per process. In embedded mode every service shares it, so a metric is declared once
 * (in its feature's metrics.ts) and the helpers below return the existing instance when a module is
 * evaluated again (tests, hot reload) instead of throwing on a duplicate name.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export function counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
  return (metricsRegistry.getSingleMetric(config.name) as Counter<L> | undefined) ??
    new Counter({ ...config, registers: [metricsRegistry] });
}

export function gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
  return (metricsRegistry.getSingleMetric(config.name) as Gauge<L> | undefined) ??
    new Gauge({ ...config, registers: [metricsRegistry] });
}

export function histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
  return (metricsRegistry.getSingleMetric(config.name) as Histogram<L> | undefined) ??
    new Histogram({ ...config, registers: [metricsRegistry] });
}
