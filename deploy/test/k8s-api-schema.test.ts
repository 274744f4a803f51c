import { describe, expect, it } from 'vitest';
import { validateAgainstKubernetesApi } from './support/kubernetes-api-validator.js';
import { renderKustomization, type Manifest } from './support/render-overlay.js';

/** The custom resources, checked by their own schemas in k8s-overlay.test.ts. */
const CUSTOM_KINDS = new Set(['ServiceMonitor', 'PrometheusRule', 'KafkaTopic']);

/**
 * Every manifest of the Kubernetes API, in the base and the production overlay, against the API of the version
 * the manifests target (1.32, through the Kubernetes Java client's models): an unknown or misspelt field, a
 * missing required one or a value of the wrong type fails, as `kubectl apply --validate=strict` would.
 */
describe.each(['deploy/k8s/base', 'deploy/k8s/overlays/production'])('%s against the Kubernetes 1.32 API', (directory) => {
  const manifests = renderKustomization(directory);
  const verdicts = validateAgainstKubernetesApi(manifests);
  // The validator is run once per directory, at collection (a JVM start takes seconds on two busy cores).
  const broken = validateAgainstKubernetesApi(brokenCopies(manifests));

  it('has every core manifest valid and no kind it does not know but the custom resources', () => {
    expect(verdicts.filter((entry) => entry.verdict === 'invalid')).toEqual([]);
    const unknown = verdicts.filter((entry) => entry.verdict === 'unknown').map((entry) => entry.manifest.split('/')[0]);
    expect(unknown.filter((kind) => !CUSTOM_KINDS.has(kind!))).toEqual([]);
    expect(verdicts.filter((entry) => entry.verdict === 'ok').length).toBeGreaterThan(20);
  });

  it('refuses a misspelt field, a missing required field and a value of the wrong type', () => {
    expect(broken.map((entry) => entry.verdict)).toEqual(['invalid', 'invalid', 'invalid']);
    expect(broken[0]?.reason).toContain('imagePullPolicyy');
    expect(broken[1]?.reason).toContain('port');
    expect(broken[2]?.reason).toContain('three');
  });
});

/** A Deployment with a misspelt field, a Service port without its port, an autoscaler with a word for a number. */
function brokenCopies(manifests: Manifest[]): Manifest[] {
  const copy = <T>(kind: string) => structuredClone(manifests.find((manifest) => manifest.kind === kind)!) as Manifest & { spec: T };
  const deployment = copy<{ template: { spec: { containers: Record<string, unknown>[] } } }>('Deployment');
  deployment.spec.template.spec.containers[0]!.imagePullPolicyy = 'Always';
  const service = copy<{ ports: Record<string, unknown>[] }>('Service');
  delete service.spec.ports[0]!.port;
  const autoscaler = copy<Record<string, unknown>>('HorizontalPodAutoscaler');
  autoscaler.spec.minReplicas = 'three';
  return [deployment, service, autoscaler];
}
