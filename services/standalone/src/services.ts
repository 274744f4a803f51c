import type { CatalogOverrides } from '@timetable/catalog-api';
import type { KeyVerifier } from '@timetable/contracts';
import { developerAuthService, type DeveloperAuthOverrides } from '@timetable/developer-auth';
import type { ServiceModule } from '@timetable/http';
import { buildContext } from '@timetable/service-kit';
import { startSimulator } from '@timetable/starplan-sim';
import { syncService, type SyncOverrides } from '@timetable/sync';
import { webhookDispatcherService, type WebhookDispatcherOverrides } from '@timetable/webhook-dispatcher';
import type { EmbeddedContext } from './embedded-context.js';
import { SERVICE_DEFINITIONS } from './service-definitions.js';
import { embeddedSecretsKey } from './webhook-secrets-key.js';

export interface EmbeddedServices {
  modules: ServiceModule[];
  /** Resolves once the first sync run ended and every module handled what it published. */
  firstSyncPublished(): Promise<void>;
  /** developer-auth's key check for the gateway; without it key routes answer 503. */
  keyVerifier?: KeyVerifier;
}

/** What the embedded host provides in place of what each service's own process makes from its config. */
type EmbeddedOverrides = CatalogOverrides & DeveloperAuthOverrides & SyncOverrides & WebhookDispatcherOverrides;

/**
 * Builds every service of the embedded mode from its definition, in the definitions' order (a consumer
 * before the producer it reads from), each on its own schema of the one PostgreSQL. The in-process bus keeps
 * what was published and lets a group that reads `fromBeginning` catch up, as Kafka does.
 */
export async function buildServices(context: EmbeddedContext): Promise<EmbeddedServices> {
  const built = new Map<object, ServiceModule>();
  // The module a definition built, typed as that definition's build returns it.
  const moduleOf = <M extends ServiceModule>(definition: { build: (context: never) => Promise<M> }) => built.get(definition) as M;
  const overrides: EmbeddedOverrides = {
    cache: context.cache,
    identity: context.identity,
    secretsKey: await embeddedSecretsKey(context.config.DATA_DIR, context.config.WEBHOOK_SECRETS_KEY, context.logger),
    upstreamBaseUrl: await upstreamBaseUrl(context),
    // The webhook module in this process, asked when a developer's webhooks are counted (it is built by then).
    webhookCounter: { countFor: (developerId) => moduleOf(webhookDispatcherService).webhookCounter.countFor(developerId) },
  };
  for (const definition of SERVICE_DEFINITIONS) {
    const { store } = definition;
    if (!store) throw new Error(`${definition.name} declares no store: the embedded host builds store-owning services`);
    const knex = await context.openStore(store.schema, store.migrations, { connectionsKept: store.connectionsKept });
    const platform = { logger: context.logger, bus: context.bus, onClose: context.onClose };
    // A call on the union of every build: this host's config and overrides must meet what each one declares.
    built.set(definition, await definition.build(buildContext(definition.name, { ...platform, config: context.config, knex, overrides })));
  }
  return {
    modules: [...built.values()],
    keyVerifier: moduleOf(developerAuthService).keyVerifier,
    firstSyncPublished: () => moduleOf(syncService).whenFirstRunPublished(),
  };
}

/** UPSTREAM_BASE_URL, or else the built-in simulator, stopped after every module stopped. */
async function upstreamBaseUrl(context: EmbeddedContext): Promise<string> {
  if (context.config.UPSTREAM_BASE_URL) return context.config.UPSTREAM_BASE_URL;
  const simulator = await startSimulator({
    port: 0,
    onError: (error) => context.logger.error({ err: error }, 'the built-in StarPlan simulator could not build an answer'),
  });
  context.onClose('built-in StarPlan simulator', () => simulator.stop());
  return simulator.url;
}
