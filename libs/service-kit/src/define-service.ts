import type { RequestListener } from 'node:http';
import type { RouteGroup, topics } from '@timetable/contracts';
import type { Knex, MigrationSet } from '@timetable/db';
import type { EventBus } from '@timetable/events';
import type { ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';

/** A topic name of the contracts, e.g. `timetable.changes.v1`. */
export type TopicName = (typeof topics)[keyof typeof topics]['name'];

/** The service's own schema and its migrations, opened and migrated by whichever host runs it. */
export interface ServiceStore {
  schema: string;
  migrations: MigrationSet;
  /** For a service whose work comes minutes apart: connections opened at start and kept, so the work does not open them each time. */
  connectionsKept?: number;
}

/**
 * A module that answers every request with an HTTP app of its own (the gateway: its edge comes before any
 * Express route), which a host serves as it is rather than behind the service app of a `ServiceModule`.
 */
export interface AppModule {
  name: string;
  listener: RequestListener;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function isAppModule(module: ServiceModule | AppModule): module is AppModule {
  return 'listener' in module;
}

/** What every host provides to a service's build, whatever else it runs beside it. */
export interface PlatformServices {
  logger: Logger;
  /** The bus, connected: Kafka in a process of its own, the in-process bus in the embedded mode. */
  bus: EventBus;
  /** Registers something the module uses beyond store and bus; released after the module stopped, before them. */
  onClose(what: string, release: () => Promise<unknown>): void;
}

/**
 * What `build` gets: the platform services, the store (on the definition's schema, migrated to latest), the
 * settings it reads (`S`, which every host's config holds) and its host-provided overrides (`O`): the
 * embedded host hands in its in-process ones, a process of its own those `processOverrides` makes from its config.
 */
export interface ServiceBuildContext<S, O = object> extends PlatformServices {
  config: S;
  /** On the definition's `store`; reading it in a store-less definition's build throws. */
  readonly knex: Knex;
  overrides: O;
}

/**
 * One service, declared once: every host (its own process, the embedded composition, the local stack, the
 * image, the tests) starts it from this. `S` is what `build` reads of the config, `C` the config of its own
 * process, `O` what a host may provide in place of what the process makes from `C`, `M` the built module.
 */
export interface ServiceDefinition<S = never, C extends S = S, O = object, M extends ServiceModule | AppModule = ServiceModule> {
  /** Logger name, Kafka client id, metric label, the package `services/<name>`, the stack's and the image's process name. */
  name: string;
  /** Its config as its own process reads it; an invalid variable ends that process with code 2 and the variable's name. */
  loadConfig: () => C;
  store?: ServiceStore;
  /** The topics it reads; a host starts a consumer before the producer it reads from. */
  consumes: readonly TopicName[];
  produces: readonly TopicName[];
  /** The public route groups of the contracts it answers. */
  routes: readonly RouteGroup[];
  /** The names of its periodic work (a test checks every PeriodicJob of the package is listed). */
  jobs: readonly string[];
  /** The local stack runs `--replicas` of it; otherwise one. */
  scalable: boolean;
  /** The Node options its process starts with (the sync's heap cap). */
  nodeOptions?: readonly string[];
  /** Its overrides when it runs as its own process, made from its own config. */
  processOverrides: (config: C, platform: PlatformServices) => O | Promise<O>;
  build: (context: ServiceBuildContext<S, O>) => Promise<M>;
}

/**
 * Declares a service: the identity function that lets TypeScript check the definition as a whole, keeping
 * its name as a literal type (so a list of definitions yields the union of their names).
 */
export function defineService<const N extends string, S, C extends S, O, M extends ServiceModule | AppModule>(
  definition: ServiceDefinition<S, C, O, M> & { name: N },
): ServiceDefinition<S, C, O, M> & { name: N } {
  return definition;
}

/** The overrides of a definition that has none. */
export const noOverrides = (): object => ({});

/** The build context a host hands over; `knex` is undefined for a store-less definition, and reading it then throws. */
export function buildContext<S, O>(name: string, parts: PlatformServices & { config: S; overrides: O; knex: Knex | undefined }): ServiceBuildContext<S, O> {
  const { knex, ...rest } = parts;
  return {
    ...rest,
    get knex(): Knex {
      if (!knex) throw new Error(`${name} declares no store`);
      return knex;
    },
  };
}
