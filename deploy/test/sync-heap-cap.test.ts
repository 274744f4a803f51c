import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SYNC_HEAP_CAP_MB } from '@timetable/sync';
import { fromRoot } from './support/paths.js';
import { renderKustomization, type Manifest } from './support/render-overlay.js';

/**
 * The sync runs with a V8 heap cap wherever it is deployed: without one, V8 let garbage grow to two or three
 * times the live heap during a first sync. The cap is declared once, as SYNC_HEAP_CAP_MB, which the local
 * stack and the bench start the sync with; the manifests must set the same value (production may raise it
 * with its memory limit). The cap must leave the container room for what is not heap (code, buffers, the
 * young generation).
 */
interface SyncContainer {
  env?: { name: string; value?: string }[];
  resources?: { limits?: { memory?: string } };
}

function syncContainerOf(manifests: Manifest[]): SyncContainer {
  const deployment = manifests.find((manifest) => manifest.kind === 'Deployment' && manifest.metadata.name === 'sync');
  const containers = (deployment?.spec as { template: { spec: { containers: (SyncContainer & { name: string })[] } } }).template.spec.containers;
  return containers.find((container) => container.name === 'sync')!;
}

function heapCapMb(nodeOptions: string | undefined): number {
  const cap = /--max-old-space-size=(\d+)/.exec(nodeOptions ?? '')?.[1];
  if (cap === undefined) throw new Error(`NODE_OPTIONS sets no heap cap: ${nodeOptions}`);
  return Number(cap);
}

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`unexpected memory quantity ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

const nodeOptionsOf = (container: SyncContainer) => container.env?.find((entry) => entry.name === 'NODE_OPTIONS')?.value;

describe("the sync's heap cap", () => {
  const base = syncContainerOf(parseAllDocuments(readFileSync(fromRoot('deploy/k8s/base/services/sync.yaml'), 'utf8')).map((document) => document.toJS() as Manifest));
  const production = syncContainerOf(renderKustomization('deploy/k8s/overlays/production'));

  it.each([
    ['base', base],
    ['production', production],
  ])('is set in the %s Deployment, at most half the memory limit', (_name, container) => {
    const cap = heapCapMb(nodeOptionsOf(container));
    expect(cap).toBeGreaterThanOrEqual(256);
    expect(cap).toBeLessThanOrEqual(mebibytes(container.resources?.limits?.memory ?? '0Mi') / 2);
  });

  it('is the declared SYNC_HEAP_CAP_MB in the base Deployment and in docker-compose', () => {
    const compose = parse(readFileSync(fromRoot('docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, { environment?: Record<string, string> }> };
    expect(heapCapMb(nodeOptionsOf(base))).toBe(SYNC_HEAP_CAP_MB);
    expect(heapCapMb(compose.services.sync?.environment?.NODE_OPTIONS)).toBe(SYNC_HEAP_CAP_MB);
  });
});
