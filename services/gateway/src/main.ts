import { loadConfigOrExit } from '@timetable/config';
import { drainOnSignal } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { loadGatewayConfig } from './config.js';
import { startDistributedGateway } from './start-distributed-gateway.js';

/** The gateway process of the distributed mode. SIGINT/SIGTERM drain in-flight requests, then stop. */
const config = loadConfigOrExit(() => loadGatewayConfig());
const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
drainOnSignal({ name: 'gateway', logger, starting: startDistributedGateway(config, logger) });
