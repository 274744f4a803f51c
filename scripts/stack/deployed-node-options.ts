/**
 * The Node options a service runs with where it is deployed, so the local stack runs it, and a bench measures
 * it, as it runs there: its NODE_OPTIONS in deploy/k8s/base (today the sync's heap cap).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

interface Container {
  name: string;
  env?: { name: string; value?: string }[];
}

export function deployedNodeOptions(service: string): string[] {
  const manifests = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy/k8s/base/services', `${service}.yaml`), 'utf8')).map(
    (document) => document.toJS() as { kind: string; spec?: { template?: { spec?: { containers?: Container[] } } } },
  );
  const containers = manifests.find((manifest) => manifest.kind === 'Deployment')?.spec?.template?.spec?.containers ?? [];
  const value = containers.find((container) => container.name === service)?.env?.find((entry) => entry.name === 'NODE_OPTIONS')?.value;
  return value?.split(/\s+/).filter(Boolean) ?? [];
}

