import { describe, expect, it } from 'vitest';
import { topics } from '@timetable/contracts';
import { deadLetterTopicOf } from '@timetable/events/testing';
import { kafkaTopic } from './support/kafka-topic-schema.js';
import { schemaErrors } from './support/kubernetes-schemas.js';
import { SERVICES } from './support/paths.js';
import { renderKustomization, type Manifest } from './support/render-overlay.js';

interface Container {
  name: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  envFrom?: { configMapRef?: { name: string } }[];
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
}
interface DeploymentSpec {
  template: { spec: { containers: Container[]; securityContext?: { runAsNonRoot?: boolean } } };
}

const manifests = renderKustomization('deploy/k8s/overlays/production');
const ofKind = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
const named = (kind: string, name: string): Manifest | undefined => ofKind(kind).find((manifest) => manifest.metadata.name === name);

describe('deploy/k8s production overlay', () => {
  it('renders only manifests that validate against their schemas', () => {
    const failures = manifests.flatMap((manifest) => schemaErrors(manifest).map((error) => `${manifest.kind}/${manifest.metadata.name}: ${error}`));
    expect(failures).toEqual([]);
    expect(new Set(manifests.map((manifest) => manifest.metadata.namespace ?? 'timetable'))).toEqual(new Set(['timetable']));
  });

  it('has a Deployment, Service and PodDisruptionBudget for every service', () => {
    for (const name of SERVICES) {
      expect(named('Deployment', name), name).toBeDefined();
      expect(named('Service', name), name).toBeDefined();
      expect(named('PodDisruptionBudget', name), name).toBeDefined();
    }
  });

  it.each(SERVICES)('probes %s on /ready and /health, sizes it and wires its config', (name) => {
    const spec = named('Deployment', name)!.spec as DeploymentSpec;
    expect(spec.template.spec.securityContext?.runAsNonRoot).toBe(true);
    const [container] = spec.template.spec.containers;
    expect(container?.args).toEqual([name]);
    expect(container?.readinessProbe?.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(container?.livenessProbe?.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(container?.ports?.map((port) => port.name)).toContain('http');
    for (const resource of ['cpu', 'memory']) {
      expect(container?.resources?.requests?.[resource], resource).toBeDefined();
      expect(container?.resources?.limits?.[resource], resource).toBeDefined();
    }
    const configMap = container?.envFrom?.[0]?.configMapRef?.name;
    expect(named('ConfigMap', configMap ?? '')).toBeDefined();
    const secretNames = new Set((container?.env ?? []).flatMap((entry) => entry.valueFrom?.secretKeyRef?.name ?? []));
    expect(secretNames).toEqual(new Set(['timetable-secrets']));
  });

  it('autoscales the gateway and the catalog-api', () => {
    const targets = ofKind('HorizontalPodAutoscaler').map((hpa) => (hpa.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name);
    expect(targets.sort()).toEqual(['catalog-api', 'gateway']);
  });

  it('denies ingress by default and lets only the gateway take traffic from anywhere', () => {
    const policies = ofKind('NetworkPolicy').map((policy) => policy.spec as {
      podSelector: { matchLabels?: Record<string, string> };
      ingress?: { from?: unknown[] }[];
    });
    expect(policies.some((policy) => Object.keys(policy.podSelector).length === 0 && !policy.ingress)).toBe(true);
    const open = policies.filter((policy) => policy.ingress?.some((rule) => !rule.from || rule.from.length === 0));
    expect(open.map((policy) => policy.podSelector.matchLabels?.['app.kubernetes.io/name'])).toEqual(['gateway']);
    expect(ofKind('Ingress').every((ingress) => JSON.stringify(ingress.spec).match(/"name":"gateway"/))).toBe(true);
  });

  it('scrapes every Service and ships the alert rules', () => {
    const monitor = named('ServiceMonitor', 'timetable')!.spec as { selector: { matchLabels: Record<string, string> } };
    for (const service of ofKind('Service')) {
      expect(service.metadata.labels, service.metadata.name).toMatchObject(monitor.selector.matchLabels);
    }
    const alerts = (named('PrometheusRule', 'timetable')!.spec as { groups: { rules: { alert: string }[] }[] }).groups.flatMap((group) =>
      group.rules.map((rule) => rule.alert),
    );
    expect(alerts).toEqual(
      expect.arrayContaining(['TimetableSyncFailing', 'TimetableOutboxBacklog', 'TimetableConsumerLag', 'TimetableEventsDeadLettered', 'TimetableConsumerRetrying', 'TimetableWebhookDeliveryFailureRate', 'TimetableHigh5xxRate']),
    );
  });

  it('defines the documented topics, compacting the entity topic, and a dead-letter topic beside each', () => {
    const defined = ofKind('KafkaTopic').map((manifest) => kafkaTopic.parse(manifest));
    const expected = Object.values(topics).flatMap((topic) => [topic.name, deadLetterTopicOf(topic.name)]);
    expect(defined.map((topic) => topic.spec.topicName).sort()).toEqual(expected.sort());
    for (const topic of Object.values(topics)) {
      const deadLetters = defined.find((candidate) => candidate.spec.topicName === deadLetterTopicOf(topic.name))!.spec;
      expect(deadLetters.config?.['cleanup.policy'], deadLetterTopicOf(topic.name)).toBe('delete');
    }
    for (const topic of Object.values(topics)) {
      const spec = defined.find((candidate) => candidate.spec.topicName === topic.name)!.spec;
      expect(spec.partitions, topic.name).toBeGreaterThanOrEqual(3);
      expect(spec.config?.['cleanup.policy'], topic.name).toBe(topic.compacted ? 'compact' : 'delete');
      if (!topic.compacted) expect(spec.config?.['retention.ms'], topic.name).toBeDefined();
    }
  });
});
