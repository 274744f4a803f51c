import { ConfigError } from '@timetable/config';
import { createLogger } from '@timetable/observability';
import { loadGatewayConfig } from './config.js';
import { startDistributedGateway } from './start-distributed-gateway.js';

/** The gateway process of the distributed mode. SIGINT/SIGTERM drain in-flight requests, then stop. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadGatewayConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
  const gateway = await startDistributedGateway(config, logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    gateway.stop().then(
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
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
