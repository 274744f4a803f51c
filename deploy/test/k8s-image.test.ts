import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { fromRoot, SERVICES } from './support/paths.js';
import { renderKustomization } from './support/render-overlay.js';

interface Container {
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
}
interface PodSpec {
  containers: Container[];
  securityContext?: { runAsUser?: number; runAsGroup?: number };
}
interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number>;
}

const compose = parse(readFileSync(fromRoot('docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
const deployments = renderKustomization('deploy/k8s/base').filter((manifest) => manifest.kind === 'Deployment');
const dockerfileUser = /^USER\s+(\d+):(\d+)\s*$/m.exec(readFileSync(fromRoot('deploy/docker/Dockerfile'), 'utf8'));

/** `${NAME:-default}` as compose resolves it with NAME unset. */
const withDefaults = (value: string) => value.replace(/\$\{\w+:-([^}]*)\}/g, '$1');

/**
 * `npm run test:containers` runs the compose services from the image deploy/docker/Dockerfile builds; the
 * Kubernetes base must run that image the same way, or what was tested is not what is deployed.
 */
describe('deploy/k8s/base runs the image the compose topology tested', () => {
  it.each(SERVICES)('%s: the same image, command, port and user', (name) => {
    const deployment = deployments.find((manifest) => manifest.metadata.name === name);
    const spec = (deployment?.spec as { template: { spec: PodSpec } } | undefined)?.template.spec;
    const [container] = spec?.containers ?? [];
    const service = compose.services[name];
    expect(container?.image).toBe(withDefaults(service?.image ?? ''));
    expect(container?.args).toEqual(service?.command);
    const port = container?.ports?.find((entry) => entry.name === 'http')?.containerPort;
    expect(port).toBe(Number(service?.environment?.PORT));
    expect(container?.env?.find((entry) => entry.name === 'PORT')?.value).toBe(String(port));
    expect([spec?.securityContext?.runAsUser, spec?.securityContext?.runAsGroup]).toEqual([Number(dockerfileUser?.[1]), Number(dockerfileUser?.[2])]);
  });
});
