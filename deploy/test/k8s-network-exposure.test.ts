import { BlockList, isIPv4 } from 'node:net';
import { describe, expect, it } from 'vitest';
import { renderKustomization, type Manifest } from './support/render-overlay.js';

/**
 * What the production overlay exposes and what the webhook-dispatcher may reach: the rules are evaluated
 * the way Kubernetes applies them (ingress path matching, egress rules as a union of allowances).
 */
interface IngressPath {
  path: string;
  pathType: 'Prefix' | 'Exact';
}
interface Peer {
  ipBlock?: { cidr: string; except?: string[] };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  podSelector?: { matchLabels?: Record<string, string> };
}
interface EgressRule {
  to?: Peer[];
  ports?: { port: number; protocol: string }[];
}
interface Destination {
  ip?: string;
  namespace?: string;
  podLabels?: Record<string, string>;
  port: number;
  protocol?: string;
}

const manifests = renderKustomization('deploy/k8s/overlays/production');
const named = (kind: string, name: string): Manifest | undefined => manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);

function ingressPaths(): IngressPath[] {
  const spec = named('Ingress', 'gateway')!.spec as { rules: { http: { paths: IngressPath[] } }[] };
  return spec.rules.flatMap((rule) => rule.http.paths);
}

/** Kubernetes matching: Exact is the whole path, Prefix matches whole path elements. */
function exposed(path: string): boolean {
  return ingressPaths().some((rule) =>
    rule.pathType === 'Exact' ? path === rule.path : path === rule.path || path.startsWith(`${rule.path.replace(/\/$/, '')}/`),
  );
}

function subset(wanted: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return Object.entries(wanted ?? {}).every(([key, value]) => labels?.[key] === value);
}

function inBlock(ip: string, block: { cidr: string; except?: string[] }): boolean {
  const list = (cidrs: string[]) => {
    const blocks = new BlockList();
    for (const cidr of cidrs) {
      const [address = '', bits = ''] = cidr.split('/');
      blocks.addSubnet(address, Number(bits), isIPv4(address) ? 'ipv4' : 'ipv6');
    }
    return blocks;
  };
  const family = isIPv4(ip) ? 'ipv4' : 'ipv6';
  // An IPv4 destination never matches an IPv6 block (BlockList alone would compare it as IPv4-mapped).
  if (isIPv4(block.cidr.split('/')[0] ?? '') !== isIPv4(ip)) return false;
  return list([block.cidr]).check(ip, family) && !list(block.except ?? []).check(ip, family);
}

function peerAllows(peer: Peer, destination: Destination): boolean {
  if (peer.ipBlock) return destination.ip !== undefined && inBlock(destination.ip, peer.ipBlock);
  if (destination.namespace === undefined) return false;
  return subset(peer.namespaceSelector?.matchLabels, { 'kubernetes.io/metadata.name': destination.namespace })
    && subset(peer.podSelector?.matchLabels, destination.podLabels);
}

function dispatcherMayReach(destination: Destination): boolean {
  const policies = manifests.filter((manifest) => {
    const spec = manifest.spec as { podSelector: { matchLabels?: Record<string, string> }; policyTypes: string[] };
    return manifest.kind === 'NetworkPolicy' && spec.policyTypes.includes('Egress')
      && subset(spec.podSelector.matchLabels, { 'app.kubernetes.io/name': 'webhook-dispatcher' });
  });
  expect(policies.length).toBeGreaterThan(0);
  return policies.some((policy) =>
    ((policy.spec as { egress?: EgressRule[] }).egress ?? []).some((rule) => {
      const portMatches = !rule.ports || rule.ports.some((port) => port.port === destination.port && port.protocol === (destination.protocol ?? 'TCP'));
      const peerMatches = !rule.to || rule.to.some((peer) => peerAllows(peer, destination));
      return portMatches && peerMatches;
    }),
  );
}

describe('the production ingress', () => {
  it.each(['/v1/timetable/programs', '/v1/timetable/openapi.json', '/api/v1/programs', '/health', '/docs', '/docs/assets/swagger-ui.css'])(
    'routes the public path %s to the gateway',
    (path) => {
      expect(exposed(path)).toBe(true);
    },
  );

  it.each(['/metrics', '/ready', '/', '/healthz', '/health/extra', '/internal/developers/x/webhook-count'])('does not expose %s', (path) => {
    expect(exposed(path)).toBe(false);
  });
});

describe('webhook-dispatcher egress', () => {
  it('allows cluster DNS, Kafka with the registry, and PostgreSQL', () => {
    const dns = { namespace: 'kube-system', podLabels: { 'k8s-app': 'kube-dns' }, port: 53 };
    expect(dispatcherMayReach({ ...dns, protocol: 'UDP' })).toBe(true);
    expect(dispatcherMayReach({ ...dns, protocol: 'TCP' })).toBe(true);
    expect(dispatcherMayReach({ namespace: 'kafka', port: 9092 })).toBe(true);
    expect(dispatcherMayReach({ namespace: 'kafka', port: 8080 })).toBe(true);
    expect(dispatcherMayReach({ namespace: 'database', podLabels: { app: 'postgresql' }, port: 5432 })).toBe(true);
  });

  it('opens port 5432 only towards the database, not on every internal host', () => {
    for (const ip of ['10.3.0.7', '172.16.5.4', '169.254.169.254']) expect(dispatcherMayReach({ ip, port: 5432 }), ip).toBe(false);
    expect(dispatcherMayReach({ namespace: 'timetable', podLabels: { 'app.kubernetes.io/name': 'gateway' }, port: 5432 })).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])('allows subscribers on the internet such as %s, on any port', (ip) => {
    expect(dispatcherMayReach({ ip, port: 443 })).toBe(true);
    expect(dispatcherMayReach({ ip, port: 8443 })).toBe(true);
  });

  it.each(['10.0.0.1', '10.96.0.1', '172.16.5.4', '192.168.1.10', '100.64.0.1', '169.254.169.254', '127.0.0.1', 'fd00:ec2::254', 'fe80::1', '::1'])(
    'refuses the private or internal address %s',
    (ip) => {
      expect(dispatcherMayReach({ ip, port: 80 })).toBe(false);
      expect(dispatcherMayReach({ ip, port: 443 })).toBe(false);
    },
  );

  it('reaches no other namespace or pod beyond DNS and Kafka', () => {
    expect(dispatcherMayReach({ namespace: 'timetable', podLabels: { 'app.kubernetes.io/name': 'gateway' }, port: 3000 })).toBe(false);
    expect(dispatcherMayReach({ namespace: 'kube-system', podLabels: { component: 'kube-apiserver' }, port: 443 })).toBe(false);
  });

  it('gets WEBHOOK_SECRETS_KEY from the Secret, never from the ConfigMap', () => {
    const deployment = named('Deployment', 'webhook-dispatcher')!.spec as {
      template: { spec: { containers: { env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[] }[] } };
    };
    const entry = deployment.template.spec.containers[0]?.env?.find((candidate) => candidate.name === 'WEBHOOK_SECRETS_KEY');
    expect(entry?.valueFrom?.secretKeyRef).toEqual({ name: 'timetable-secrets', key: 'WEBHOOK_SECRETS_KEY' });
    const configMaps = manifests.filter((manifest) => manifest.kind === 'ConfigMap');
    expect(configMaps.every((configMap) => !('WEBHOOK_SECRETS_KEY' in (configMap.data ?? {})))).toBe(true);
  });
});
