/** The catalog-api process of the distributed mode (`npm run start:catalog-api`); scales out behind the gateway. */
import { runService } from '@timetable/service-kit';
import { catalogApiService } from './catalog-api-service.js';

runService(catalogApiService);
