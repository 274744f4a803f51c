import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { OwnedProcess } from './owned-process.js';

/** Where scripts/infra-up.sh put the broker's classpath and the registry (fetched from Maven Central). */
export interface InfraArtifacts {
  kafkaLibs: string;
  registryJar: string;
  log4jConfig: string;
}

export function infraArtifacts(repoRoot: string): InfraArtifacts {
  const target = path.join(repoRoot, 'scripts/infra/target');
  const artifacts = {
    kafkaLibs: path.join(target, 'kafka-libs'),
    registryJar: path.join(target, 'apicurio/quarkus-run.jar'),
    log4jConfig: path.join(repoRoot, 'scripts/infra/log4j.properties'),
  };
  const hasBroker = existsSync(artifacts.kafkaLibs) && readdirSync(artifacts.kafkaLibs).some((name) => name.startsWith('kafka_2.13-'));
  if (!hasBroker || !existsSync(artifacts.registryJar)) {
    throw new Error('Kafka and Apicurio Registry are not fetched yet: run scripts/infra-up.sh once (it resolves them with Maven)');
  }
  return artifacts;
}

/**
 * A single-node KRaft broker of the test's own, on its own ports and data folder: a fault test stops and
 * restarts it (its data survives) without touching the machine's shared broker.
 */
export class PrivateKafka {
  readonly brokers: string[];
  private readonly process: OwnedProcess;

  constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly controllerPort: number,
    private readonly artifacts: InfraArtifacts,
  ) {
    this.brokers = [`127.0.0.1:${port}`];
    this.process = new OwnedProcess({
      name: 'kafka',
      command: 'java',
      args: ['-Xms256m', '-Xmx512m', '-XX:+UseG1GC', `-Dlog4j.configuration=file:${artifacts.log4jConfig}`, '-cp', `${artifacts.kafkaLibs}/*`, 'kafka.Kafka', this.configFile],
      cwd: dir,
      logFile: path.join(dir, 'kafka.log'),
    });
  }

  private get configFile(): string {
    return path.join(this.dir, 'server.properties');
  }

  async start(): Promise<void> {
    if (!existsSync(path.join(this.dir, 'data', 'meta.properties'))) this.format();
    this.process.start();
    await this.process.waitUntil('a metadata answer', () => this.answers(), 90_000);
  }

  stop(): Promise<void> {
    return this.process.stop();
  }

  /** SIGKILL, as a crash or an OOM kill would; `start()` brings it back on the same data. */
  kill(): Promise<void> {
    return this.process.kill();
  }

  async answers(): Promise<boolean> {
    const admin = new Kafka({ brokers: this.brokers, logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 1_000 }).admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      return true;
    } catch {
      return false;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  private format(): void {
    mkdirSync(path.join(this.dir, 'data'), { recursive: true });
    writeFileSync(
      this.configFile,
      [
        'process.roles=broker,controller',
        'node.id=1',
        `controller.quorum.voters=1@127.0.0.1:${this.controllerPort}`,
        `listeners=PLAINTEXT://127.0.0.1:${this.port},CONTROLLER://127.0.0.1:${this.controllerPort}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${this.port}`,
        'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
        'controller.listener.names=CONTROLLER',
        'inter.broker.listener.name=PLAINTEXT',
        `log.dirs=${path.join(this.dir, 'data')}`,
        'num.partitions=3',
        'auto.create.topics.enable=false',
        'offsets.topic.replication.factor=1',
        'transaction.state.log.replication.factor=1',
        'transaction.state.log.min.isr=1',
        'group.initial.rebalance.delay.ms=0',
        '',
      ].join('\n'),
    );
    const java = (...args: string[]) =>
      execFileSync('java', [`-Dlog4j.configuration=file:${this.artifacts.log4jConfig}`, '-cp', `${this.artifacts.kafkaLibs}/*`, ...args], { cwd: this.dir }).toString();
    const clusterId = java('kafka.tools.StorageTool', 'random-uuid').trim().split('\n').at(-1) ?? '';
    java('kafka.tools.StorageTool', 'format', '--ignore-formatted', '-t', clusterId, '-c', this.configFile);
  }
}
