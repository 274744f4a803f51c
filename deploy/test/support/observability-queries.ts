import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { fromRoot } from './paths.js';

export interface RuleGroups {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}

export const DASHBOARD_PATH = 'deploy/observability/grafana/dashboards/timetable.json';
export const ALERT_RULES_PATH = 'deploy/observability/alert-rules.yml';

export function readAlertRules(): RuleGroups {
  return parse(readFileSync(fromRoot(ALERT_RULES_PATH), 'utf8')) as RuleGroups;
}

export function alertExpressions(rules: RuleGroups): string[] {
  return rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr));
}

/** Every PromQL expression of the dashboard: panel targets, and the metric of `label_values(...)` variables. */
export function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(fromRoot(DASHBOARD_PATH), 'utf8')) as unknown;
  const expressions: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'expr' && typeof value === 'string') expressions.push(value);
      else if (key === 'definition' && typeof value === 'string') {
        const metric = /label_values\(\s*([\w:]+)\s*,/.exec(value)?.[1];
        if (metric) expressions.push(metric);
      } else visit(value);
    }
  };
  visit(dashboard);
  return expressions;
}
