import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { InfraArtifacts } from './private-kafka.js';
import { OwnedProcess } from './owned-process.js';

/** Apicurio Registry 3.3 needs Java 21+: the one on PATH if new enough, else the newest JDK under /usr/lib/jvm. */
function registryJava(): string {
  const jvms = existsSync('/usr/lib/jvm') ? readdirSync('/usr/lib/jvm').map((name) => path.join('/usr/lib/jvm', name, 'bin/java')).sort().reverse() : [];
  for (const candidate of ['java', ...jvms]) {
    // The settings go to stderr; a candidate that is missing or broken simply prints none.
    const { stdout, stderr } = spawnSync(candidate, ['-XshowSettings:properties', '-version'], { encoding: 'utf8' });
    const major = Number(/java\.specification\.version = (\d+)/.exec(`${stdout ?? ''}${stderr ?? ''}`)?.[1]);
    if (major >= 21) return candidate;
  }
  throw new Error('Apicurio Registry needs Java 21 or newer (none found on PATH or under /usr/lib/jvm)');
}

/**
 * An Apicurio Registry of the test's own (Confluent-compatible API), its schemas in an H2 file in its folder so
 * ids survive a restart, exactly as the shared one keeps them.
 */
export class PrivateRegistry {
  readonly url: string;
  private readonly process: OwnedProcess;

  constructor(
    dir: string,
    readonly port: number,
    managementPort: number,
    artifacts: InfraArtifacts,
  ) {
    this.url = `http://127.0.0.1:${port}/apis/ccompat/v7`;
    this.process = new OwnedProcess({
      name: 'registry',
      command: registryJava(),
      args: [
        '-Xmx384m',
        '-Dquarkus.http.host=127.0.0.1',
        `-Dquarkus.http.port=${port}`,
        '-Dquarkus.management.host=127.0.0.1',
        `-Dquarkus.management.port=${managementPort}`,
        `-Dapicurio.datasource.url=jdbc:h2:file:${path.join(dir, 'registry')};DB_CLOSE_ON_EXIT=FALSE`,
        '-Dquarkus.http.access-log.enabled=false',
        '-jar',
        artifacts.registryJar,
      ],
      cwd: dir,
      logFile: path.join(dir, 'registry.log'),
    });
  }

  async start(): Promise<void> {
    this.process.start();
    await this.process.waitUntil('the subjects API', () => this.answers(), 120_000);
  }

  stop(): Promise<void> {
    return this.process.stop();
  }

  /** SIGKILL, as a crash or an OOM kill would; `start()` brings it back on the same data. */
  kill(): Promise<void> {
    return this.process.kill();
  }

  async answers(): Promise<boolean> {
    const response = await fetch(`${this.url}/subjects`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    await response?.body?.cancel().catch(() => undefined);
    return response?.ok ?? false;
  }
}
