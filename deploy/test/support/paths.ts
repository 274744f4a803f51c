import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../../..');

export function fromRoot(...segments: string[]): string {
  return path.join(repoRoot, ...segments);
}

/** The processes of the distributed mode, each a Deployment, a compose service and an image command. */
export const SERVICES = ['gateway', 'catalog-api', 'sync', 'changes', 'webhook-dispatcher', 'developer-auth'] as const;
export type ServiceName = (typeof SERVICES)[number];
