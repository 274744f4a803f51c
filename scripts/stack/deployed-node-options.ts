/**
 * The Node options a service runs with where it is deployed, so the local stack runs it, and a bench measures
 * it, as it runs there: its NODE_OPTIONS in deploy/k8s/base (today the sync's heap cap), and the V8 flags the
 * image's entrypoint passes on node's command line because NODE_OPTIONS refuses them (today the sync's). deploy/test
 * keeps docker-compose and the entrypoint in step with them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
// The flags' own module: the service's index would load all of the sync for one list.
import { SYNC_V8_FLAGS } from '@timetable/sync/v8-flags';
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

/** The V8 flags deploy/docker/run-service.sh starts the service's process with. */
export function entrypointV8Flags(service: string): readonly string[] {
  return service === 'sync' ? SYNC_V8_FLAGS : [];
}

/** Everything the service's deployed process has on node's command line: its NODE_OPTIONS, then the entrypoint's V8 flags. */
export function serviceNodeOptions(service: string): string[] {
  return [...deployedNodeOptions(service), ...entrypointV8Flags(service)];
}
