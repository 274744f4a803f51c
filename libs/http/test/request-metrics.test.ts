import { Counter, Histogram, Registry, type OpenMetricsContentType } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { RequestMetrics, type RequestLabels } from '../src/request-metrics.js';

/** The request series are tallied by hand for speed; a scrape must read exactly what prom-client would print. */

const OPTIONS = {
  durationName: 'http_request_duration_seconds',
  durationHelp: 'HTTP request latency by service, method, route pattern and status',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  totalName: 'http_requests_total',
  totalHelp: 'HTTP requests by service, method, route pattern and status',
};

function promClientPair(registry: Registry | Registry<OpenMetricsContentType>) {
  const labelNames = ['service', 'method', 'route', 'status'] as const;
  const duration = new Histogram({ name: OPTIONS.durationName, help: OPTIONS.durationHelp, labelNames, buckets: OPTIONS.buckets, registers: [registry] });
  const total = new Counter({ name: OPTIONS.totalName, help: OPTIONS.totalHelp, labelNames, registers: [registry] });
  return (labels: RequestLabels, seconds: number) => {
    duration.observe(labels, seconds);
    total.inc(labels);
  };
}

function openMetricsRegistry() {
  const registry = new Registry<OpenMetricsContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  return registry;
}

const week: RequestLabels = { service: 'gateway', method: 'GET', route: '/v1/timetable/week/:week', status: '200' };
const notModified: RequestLabels = { ...week, status: '304' };
const unmatched: RequestLabels = { service: 'catalog-api', method: 'POST', route: 'unmatched', status: '404' };
// Bounds themselves (inclusive), values between them, below the first and above the last; "quoted" labels.
const OBSERVATIONS: [RequestLabels, number][] = [
  [week, 0.0004],
  [week, 0.001],
  [week, 0.0031],
  [notModified, 0.0025],
  [unmatched, 7.5],
  [week, 0.25],
  [{ ...unmatched, route: 'a "quoted" \\ route' }, 0.05],
  [week, 5],
  [notModified, 0.9],
];

describe('the request metrics', () => {
  it('print the same text and JSON as a prom-client Histogram and Counter fed the same requests', async () => {
    const expected = new Registry();
    const viaPromClient = promClientPair(expected);
    const actual = new Registry();
    const metrics = RequestMetrics.in(actual, OPTIONS);
    for (const [labels, seconds] of OBSERVATIONS) {
      viaPromClient(labels, seconds);
      metrics.observe(labels, seconds);
    }

    expect(await actual.metrics()).toBe(await expected.metrics());
    expect(await actual.getMetricsAsJSON()).toEqual(await expected.getMetricsAsJSON());
  });

  it('print the same OpenMetrics text as prom-client, counter renamed and `_total` on its samples', async () => {
    const expected = openMetricsRegistry();
    const viaPromClient = promClientPair(expected);
    const actual = openMetricsRegistry();
    const metrics = RequestMetrics.in(actual, OPTIONS);
    for (const [labels, seconds] of OBSERVATIONS) {
      viaPromClient(labels, seconds);
      metrics.observe(labels, seconds);
    }

    const text = await actual.metrics();
    expect(text).toBe(await expected.metrics());
    expect(text).toMatch(/^# TYPE http_requests counter$/m);
    expect(text).toMatch(/^http_requests_total\{service="gateway",method="GET",route="\/v1\/timetable\/week\/:week",status="200"\} 5$/m);
    // A second scrape reads the same: the rename in place must not compound.
    expect(await actual.metrics()).toBe(text);
  });

  it('are registered once per registry: evaluating the module again counts into the printed series', async () => {
    const registry = new Registry();
    const first = RequestMetrics.in(registry, OPTIONS);
    const again = RequestMetrics.in(registry, OPTIONS);
    expect(again).toBe(first);
    again.observe(week, 0.002);
    expect(await registry.metrics()).toMatch(/^http_requests_total\{service="gateway",method="GET",route="\/v1\/timetable\/week\/:week",status="200"\} 1$/m);
  });

  it('are found by a second copy of the module, and refuse names that something else registered', async () => {
    const registry = new Registry();
    const first = RequestMetrics.in(registry, OPTIONS);
    vi.resetModules();
    const copy = await import('../src/request-metrics.js');
    expect(copy.RequestMetrics).not.toBe(RequestMetrics);
    expect(copy.RequestMetrics.in(registry, OPTIONS)).toBe(first);

    const taken = new Registry();
    new Counter({ name: OPTIONS.totalName, help: 'someone else', registers: [taken] });
    expect(() => RequestMetrics.in(taken, OPTIONS)).toThrow(/already registered by something other than the request metrics/);
  });

  it('are emptied by the registry reset and ignore a duration that is not a number', async () => {
    const registry = new Registry();
    const metrics = RequestMetrics.in(registry, OPTIONS);
    metrics.observe(week, Number.NaN);
    metrics.observe(week, 0.002);
    expect(await registry.metrics()).toMatch(/^http_request_duration_seconds_count\{.*\} 1$/m);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toMatch(/_count/);
  });
});
