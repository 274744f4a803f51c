import { runProcess } from '@timetable/service-kit';
import { loadStandaloneConfig } from './config.js';
import { startEmbeddedSystem } from './app.js';

/** `npm start`: the whole system in one process. SIGINT/SIGTERM drain and stop it cleanly. */
// startEmbeddedSystem stops whatever it had started when it fails, so a failed start needs no clean-up here.
runProcess({ name: 'timetable', loadConfig: loadStandaloneConfig, start: ({ config, logger }) => startEmbeddedSystem(config, logger) });
