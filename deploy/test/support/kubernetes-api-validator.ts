import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fromRoot } from './paths.js';
import type { Manifest } from './render-overlay.js';

const SCHEMA_DIR = fromRoot('deploy/k8s-schema');
const LIBS = `${SCHEMA_DIR}/target/libs`;

export interface ApiVerdict {
  verdict: 'ok' | 'invalid' | 'unknown';
  /** `Kind/name` */
  manifest: string;
  reason?: string;
}

function run(command: string, args: string[], input?: string): string {
  try {
    return execFileSync(command, args, { cwd: SCHEMA_DIR, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { stderr?: string };
    if (failed.code === 'ENOENT') throw new Error(`${command} is not installed: the Kubernetes schema check needs Java 11+ and Maven (deploy/k8s-schema)`);
    throw new Error(`${command} ${args.join(' ')} failed: ${failed.stderr ?? failed.message}`);
  }
}

/**
 * Checks manifests against the Kubernetes API of the version deploy/k8s targets, with the models the
 * Kubernetes Java client generates from that version's OpenAPI (deploy/k8s-schema): strict about unknown
 * fields, required fields and value types. Kinds outside the core API (custom resources) come back `unknown`.
 */
export function validateAgainstKubernetesApi(manifests: Manifest[]): ApiVerdict[] {
  if (!existsSync(LIBS) || !readdirSync(LIBS).some((name) => name.startsWith('client-java-api-'))) {
    run('mvn', ['-q', '-B', '-Dstyle.color=never', 'package']);
  }
  const output = run('java', ['-cp', `${LIBS}/*`, 'ValidateManifests.java'], JSON.stringify(manifests));
  return output
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = /^(ok|invalid|unknown) (\S+)(?:: (.*))?$/.exec(line);
      if (!match) throw new Error(`unexpected output of ValidateManifests: ${line}`);
      return { verdict: match[1] as ApiVerdict['verdict'], manifest: match[2]!, ...(match[3] ? { reason: match[3] } : {}) };
    });
}
