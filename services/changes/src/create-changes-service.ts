import { isDatabaseReachable, type Knex } from '@timetable/db';
import { consumerReadiness, type EventBus } from '@timetable/events';
import type { ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { subscribeChangeLog } from './features/change-log/change-log-consumer.js';
import { changesRoutes } from './features/change-log/changes-routes.js';
import { ChangeStore } from './features/change-log/change-store.js';

export interface ChangesServiceDeps {
  /** On the `changes` schema, already migrated with `changesMigrations`. */
  knex: Knex;
  bus: EventBus;
  logger: Logger;
}

/** The change log: consumes timetable.changes.v1 and serves /changes. */
export function createChangesService(deps: ChangesServiceDeps): Promise<ServiceModule> {
  const store = new ChangeStore({ knex: deps.knex });
  const consumer = subscribeChangeLog(deps.bus, store);
  const logger = deps.logger.child({ service: 'changes' });
  return Promise.resolve({
    name: 'changes',
    routes: changesRoutes(store),
    readiness: [
      { name: 'changes-store', check: () => isDatabaseReachable(deps.knex) },
      consumerReadiness('changes-consumer', consumer),
    ],
    async start() {
      await consumer.start();
      logger.info('change log consumer started');
    },
    async stop() {
      await consumer.stop();
    },
  });
}
