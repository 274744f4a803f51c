import { catalogApiService } from '@timetable/catalog-api';
import { changesService } from '@timetable/changes';
import { developerAuthService } from '@timetable/developer-auth';
import { gatewayService } from '@timetable/gateway';
import { syncService } from '@timetable/sync';
import { webhookDispatcherService } from '@timetable/webhook-dispatcher';

/**
 * Every service of the system, each declared once in its own package. The order is the one hosts build and
 * start them in: a consumer before the producer it reads from (sync last), so a consumer that reads only
 * what comes after it starts (the webhook matcher) sees the first run's changes too.
 */
export const SERVICE_DEFINITIONS = [catalogApiService, changesService, webhookDispatcherService, developerAuthService, syncService] as const;

export type ServiceDefinitionName = (typeof SERVICE_DEFINITIONS)[number]['name'];

/**
 * Every process of the distributed mode, each run from its definition: the services, then the gateway in
 * front of them (it produces the usage events developer-auth consumes).
 */
export const PROCESS_DEFINITIONS = [...SERVICE_DEFINITIONS, gatewayService] as const;

export type ProcessName = (typeof PROCESS_DEFINITIONS)[number]['name'];
