import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { kafkaTopic } from './kafka-topic-schema.js';
import type { Manifest } from './render-overlay.js';

interface Validating {
  validate(): void;
}
type ModelClass = new (data: never) => Validating;

/**
 * The JSON schemas shipped by kubernetes-models (Kubernetes API) and @kubernetes-models/prometheus-operator
 * (ServiceMonitor, PrometheusRule), by `apiVersion/kind`. No npm package ships Strimzi's schemas, so
 * KafkaTopic is checked by a zod schema of the fields we use.
 */
const MODELS: Record<string, ModelClass> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

/** The schema violations of one manifest, empty when it is valid. */
export function schemaErrors(manifest: Manifest): string[] {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  if (key === 'kafka.strimzi.io/v1beta2/KafkaTopic') {
    const result = kafkaTopic.safeParse(manifest);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  }
  const Model = MODELS[key];
  if (!Model) return [`no schema known for ${key}`];
  try {
    new Model(manifest as never).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}
