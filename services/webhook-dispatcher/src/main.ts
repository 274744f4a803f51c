/** The webhook-dispatcher process of the distributed mode (`npm run start:webhook-dispatcher`). */
import { runService } from '@timetable/service-kit';
import { webhookDispatcherService } from './webhook-dispatcher-service.js';

runService(webhookDispatcherService);
