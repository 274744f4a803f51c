/** The gateway process of the distributed mode. SIGINT/SIGTERM drain in-flight requests, then stop. */
import { runService } from '@timetable/service-kit';
import { gatewayService } from './gateway-service.js';

runService(gatewayService);
