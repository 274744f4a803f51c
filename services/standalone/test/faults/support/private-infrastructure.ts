import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { infraArtifacts, PrivateKafka, PrivatePostgres, PrivateRedis, PrivateRegistry } from '@timetable/testing';
import { repoRoot } from '../../../../../scripts/stack/stack-process.js';
import { PortAllocator } from '../../../../../scripts/stack/stack-topology.js';

/**
 * Everything a fault test breaks, of its own: PostgreSQL, Redis, a Kafka broker and a schema registry, each
 * on free ports in one temporary folder. The machine's shared services, which other test files use at the
 * same time, are never touched.
 */
export interface PrivateInfrastructure {
  dir: string;
  ports: PortAllocator;
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  kafka: PrivateKafka;
  registry: PrivateRegistry;
  stop(): Promise<void>;
}

type Part = 'postgres' | 'redis' | 'kafka' | 'registry';

/** `only` starts just those parts (the others are created but not started). */
export async function startPrivateInfrastructure(options: { only?: Part[] } = {}): Promise<PrivateInfrastructure> {
  const wanted = (part: Part) => !options.only || options.only.includes(part);
  const dir = mkdtempSync(path.join(tmpdir(), 'timetable-faults-'));
  // PostgreSQL runs as its own user when we are root, and must reach its folder inside this one.
  chmodSync(dir, 0o755);
  const folder = (name: string) => {
    const sub = path.join(dir, name);
    mkdirSync(sub, { recursive: true });
    return sub;
  };
  const ports = new PortAllocator();
  const artifacts = wanted('kafka') || wanted('registry') ? infraArtifacts(repoRoot) : { kafkaLibs: '', registryJar: '', log4jConfig: '' };
  const postgres = new PrivatePostgres(path.join(dir, 'postgres'), await ports.next());
  const redis = new PrivateRedis(folder('redis'), await ports.next());
  const kafka = new PrivateKafka(folder('kafka'), await ports.next(), await ports.next(), artifacts);
  const registry = new PrivateRegistry(folder('registry'), await ports.next(), await ports.next(), artifacts);
  const stop = async () => {
    await Promise.all([registry.stop(), kafka.stop(), redis.stop(), postgres.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all([
      wanted('postgres') ? postgres.start() : undefined,
      wanted('redis') ? redis.start() : undefined,
      wanted('kafka') ? kafka.start() : undefined,
      wanted('registry') ? registry.start() : undefined,
    ]);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { dir, ports, postgres, redis, kafka, registry, stop };
}
