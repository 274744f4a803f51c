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

/** Both registries fed the same requests, ours through RequestMetrics and the other through prom-client's own metrics. */
function fedAlike(expected: Registry | Registry<OpenMetricsContentType>, actual: Registry | Registry<OpenMetricsContentType>, observations = OBSERVATIONS) {
  const viaPromClient = promClientPair(expected);
  const metrics = RequestMetrics.in(actual, OPTIONS);
  for (const [labels, seconds] of observations) {
    viaPromClient(labels, seconds);
    metrics.observe(labels, seconds);
  }
  return { viaPromClient, metrics };
}

/** The same scrape: text byte for byte, and JSON as the same objects with the same keys in the same order. */
async function expectSameScrape(actual: Registry | Registry<OpenMetricsContentType>, expected: Registry | Registry<OpenMetricsContentType>) {
  expect(await actual.metrics()).toBe(await expected.metrics());
  const [actualJson, expectedJson] = [await actual.getMetricsAsJSON(), await expected.getMetricsAsJSON()];
  expect(actualJson).toStrictEqual(expectedJson);
  expect(JSON.stringify(actualJson)).toBe(JSON.stringify(expectedJson));
}

describe('the request metrics', () => {
  it('print the same text and JSON as a prom-client Histogram and Counter fed the same requests', async () => {
    const expected = new Registry();
    const actual = new Registry();
    fedAlike(expected, actual);
    await expectSameScrape(actual, expected);
  });

  it('print the same with default labels on the registry', async () => {
    const expected = new Registry();
    const actual = new Registry();
    for (const registry of [expected, actual]) registry.setDefaultLabels({ pod: 'gateway-7d9f', service: 'not-this-one' });
    fedAlike(expected, actual);
    await expectSameScrape(actual, expected);
  });

  it('keep label sets apart whatever characters they hold, newlines included', async () => {
    const expected = new Registry();
    const actual = new Registry();
    fedAlike(expected, actual, [
      [{ service: 'a\nb', method: 'c', route: 'r', status: '200' }, 0.01],
      [{ service: 'a', method: 'b\nc', route: 'r', status: '200' }, 0.01],
      [{ service: 'a:1', method: 'b', route: 'r', status: '200' }, 0.01],
      [{ service: 'a', method: ':1b', route: 'r', status: '200' }, 0.01],
    ]);
    await expectSameScrape(actual, expected);
    expect((await actual.metrics()).match(/^http_requests_total\{/gm)).toHaveLength(4);
  });

  it('print the same after the registry reset, and after one of the two metrics is reset alone', async () => {
    const expected = new Registry();
    const actual = new Registry();
    const { viaPromClient, metrics } = fedAlike(expected, actual);
    for (const registry of [expected, actual]) registry.resetMetrics();
    viaPromClient(week, 0.003);
    metrics.observe(week, 0.003);
    await expectSameScrape(actual, expected);

    for (const registry of [expected, actual]) registry.getSingleMetric(OPTIONS.totalName)!.reset();
    viaPromClient(notModified, 0.2);
    metrics.observe(notModified, 0.2);
    await expectSameScrape(actual, expected);
  });

  it('print the same OpenMetrics text and JSON as prom-client, counter renamed and `_total` on its samples', async () => {
    const expected = openMetricsRegistry();
    const actual = openMetricsRegistry();
    fedAlike(expected, actual);

    const text = await actual.metrics();
    await expectSameScrape(actual, expected);
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

    // Ours under one name, someone else's under the other: neither is taken over.
    const mixed = new Registry();
    RequestMetrics.in(mixed, OPTIONS);
    mixed.removeSingleMetric(OPTIONS.totalName);
    new Counter({ name: OPTIONS.totalName, help: 'someone else', registers: [mixed] });
    expect(() => RequestMetrics.in(mixed, OPTIONS)).toThrow(/already registered by something other than the request metrics/);
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
