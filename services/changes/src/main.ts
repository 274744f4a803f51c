/** The change-log process of the distributed mode (`npm run start:changes`). */
import { runService } from '@timetable/service-kit';
import { loadChangesConfig } from './config.js';
import { createChangesService } from './create-changes-service.js';
import { changesMigrations, CHANGES_SCHEMA } from './migrations/index.js';

runService({
  name: 'changes',
  loadConfig: loadChangesConfig,
  store: { schema: CHANGES_SCHEMA, migrations: changesMigrations },
  build: ({ knex, bus, logger }) => createChangesService({ knex, bus, logger }),
});
