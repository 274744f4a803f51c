import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { alertExpressions, dashboardExpressions, readAlertRules } from './support/observability-queries.js';
import { fromRoot } from './support/paths.js';
import { exposedMetricNames, metricNamesIn } from './support/promql-metric-names.js';

describe('alert rules', () => {
  it('are the same for docker-compose and for the Prometheus Operator', () => {
    const rule = parse(readFileSync(fromRoot('deploy/k8s/base/monitoring/prometheus-rule.yaml'), 'utf8')) as { spec: unknown };
    expect(rule.spec).toEqual(readAlertRules());
  });

  it('and the dashboard select at least one metric per expression', () => {
    for (const expression of [...alertExpressions(readAlertRules()), ...dashboardExpressions()]) {
      expect(metricNamesIn(expression), expression).not.toEqual([]);
    }
  });
});

describe('metricNamesIn', () => {
  it('finds selected metrics, not functions, labels, keywords, numbers or Grafana variables', () => {
    const expression =
      'histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket{service=~"$service",route!="x"}[$__rate_interval]))) > 1e-3 ' +
      'or (time() - max(sync_last_success_timestamp_seconds offset 5m)) > 3600 unless on (job) count(webhook_breaker_state == 2) or vector(0)';
    expect(metricNamesIn(expression).sort()).toEqual(['http_request_duration_seconds_bucket', 'sync_last_success_timestamp_seconds', 'webhook_breaker_state']);
  });
});

describe('exposedMetricNames', () => {
  it('adds the series of histograms', () => {
    const names = exposedMetricNames('# HELP a_seconds x\n# TYPE a_seconds histogram\n# TYPE b_total counter\n');
    expect([...names].sort()).toEqual(['a_seconds', 'a_seconds_bucket', 'a_seconds_count', 'a_seconds_sum', 'b_total']);
  });
});
