import { loadConfigOrExit } from '@timetable/config';
import { drainOnSignal } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { loadStandaloneConfig } from './config.js';
import { startEmbeddedSystem } from './app.js';

/** `npm start`: the whole system in one process. SIGINT/SIGTERM drain and stop it cleanly. */
const config = loadConfigOrExit(() => loadStandaloneConfig());
const logger = createLogger({ name: 'timetable', level: config.LOG_LEVEL });
// startEmbeddedSystem stops whatever it had started when it fails, so a failed start needs no clean-up here.
drainOnSignal({ name: 'timetable', logger, starting: startEmbeddedSystem(config, logger) });
