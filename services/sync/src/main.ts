/** The sync process of the distributed mode (`npm run start:sync`): mirrors UPSTREAM_BASE_URL into Kafka. */
import { runService } from '@timetable/service-kit';
import { syncService } from './sync-service.js';

runService(syncService);
