import { createLogger } from '@timetable/observability';
import { ConfigError } from '@timetable/config';
import { loadStandaloneConfig, type StandaloneConfig } from './config.js';
import { startEmbeddedSystem } from './app.js';

/** `npm start`: the whole system in one process. SIGINT/SIGTERM drain and stop it cleanly. */
function readConfigOrExit(): StandaloneConfig {
  try {
    return loadStandaloneConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

const config = readConfigOrExit();
const logger = createLogger({ name: 'timetable', level: config.LOG_LEVEL });
const starting = startEmbeddedSystem(config, logger);
let stopping = false;

// Installed before start completes, so a signal during start-up still drains instead of killing the process.
function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  starting
    .then((system) => system.stop())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

starting.catch((error: unknown) => {
  logger.fatal({ err: error }, 'timetable failed to start');
  process.exit(1);
});
