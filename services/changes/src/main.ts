/** The change-log process of the distributed mode (`npm run start:changes`). */
import { runService } from '@timetable/service-kit';
import { changesService } from './changes-service.js';

runService(changesService);
