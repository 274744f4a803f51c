import { createLogger } from '@timetable/observability';
import { ConfigError } from '@timetable/config';
import { loadStandaloneConfig } from './config.js';
import { startEmbeddedSystem } from './app.js';

/** `npm start`: the whole system in one process. SIGINT/SIGTERM drain and stop it cleanly. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadStandaloneConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger({ name: 'timetable', level: config.LOG_LEVEL });
  const system = await startEmbeddedSystem(config, logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    system.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`timetable failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
