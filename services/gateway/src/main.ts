import { runProcess } from '@timetable/service-kit';
import { loadGatewayConfig } from './config.js';
import { startDistributedGateway } from './start-distributed-gateway.js';

/** The gateway process of the distributed mode. SIGINT/SIGTERM drain in-flight requests, then stop. */
runProcess({ name: 'gateway', loadConfig: loadGatewayConfig, start: ({ config, logger }) => startDistributedGateway(config, logger) });
