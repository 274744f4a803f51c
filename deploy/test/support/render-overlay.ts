import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './paths.js';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: unknown;
  data?: Record<string, string>;
}

/** Renders a kustomization with the kubectl on PATH (its built-in kustomize), failing loudly without it. */
export function renderKustomization(directory: string): Manifest[] {
  let output: string;
  try {
    output = execFileSync('kubectl', ['kustomize', directory], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('kubectl is not installed: the deploy tests render the overlay with it (apt-get install -y kubectl)');
    }
    throw error;
  }
  return parseAllDocuments(output).map((document) => {
    if (document.errors.length > 0) throw document.errors[0];
    return document.toJS() as Manifest;
  });
}
