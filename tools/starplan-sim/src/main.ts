/** Standalone simulator (`npm run sim`): serves the demo university until SIGINT or SIGTERM. */
import { createLogger } from '@timetable/observability';
import { loadConfig } from './config.js';
import { startSimulator } from './start-simulator.js';

const config = loadConfig();
const logger = createLogger({ name: 'starplan-sim', level: config.logLevel });
const running = await startSimulator({ ...config, onError: (error) => logger.error({ err: error }, 'an answer could not be built') });
logger.info(
  { url: running.url, seed: config.seed, scale: config.scale, today: running.simulator.options.today },
  `StarPlan simulator listening on ${running.url}`,
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  running.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ err: error }, 'stop failed');
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
