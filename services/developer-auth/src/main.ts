/** The developer-auth process of the distributed mode (`npm run start:developer-auth`). */
import { runService } from '@timetable/service-kit';
import { developerAuthService } from './developer-auth-service.js';

runService(developerAuthService);
