import { changesApi, topics } from '@timetable/contracts';
import { defineService, noOverrides, type ServiceBuildContext } from '@timetable/service-kit';
import { loadChangesConfig } from './config.js';
import { createChangesService } from './create-changes-service.js';
import { changesMigrations, CHANGES_SCHEMA } from './migrations/index.js';

/** The change log: keeps every change sync publishes and serves /changes. Reads no setting and needs no override. */
export const changesService = defineService({
  name: 'changes',
  loadConfig: loadChangesConfig,
  store: { schema: CHANGES_SCHEMA, migrations: changesMigrations },
  consumes: [topics.changes.name],
  produces: [],
  routes: [changesApi],
  jobs: [],
  scalable: true,
  processOverrides: noOverrides,
  build: ({ knex, bus, logger }: ServiceBuildContext<object>) => createChangesService({ knex, bus, logger }),
});
