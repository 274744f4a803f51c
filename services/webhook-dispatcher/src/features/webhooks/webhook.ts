import type { WebhookResource } from '@timetable/contracts';

type Scope = WebhookResource['filterScope'];
type EventType = WebhookResource['eventTypes'][number];

/** A stored webhook; unlike the resource it carries its owner and secret. */
export interface Webhook {
  id: string;
  developerId: string;
  url: string;
  secret: string | null;
  filterScope: Scope;
  filterProgramId: string | null;
  filterSemesterId: string | null;
  filterCourseId: string | null;
  filterRoomId: string | null;
  filterInstructorId: string | null;
  eventTypes: EventType[];
  isActive: boolean;
  /** Set when the system disabled it because its deliveries kept failing; null otherwise. */
  disabledReason: string | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** `host:port` of a subscriber URL: the unit of the per-host concurrency limit. */
export function subscriberHost(url: string): string {
  return new URL(url).host;
}

/** The filter id each non-global scope consults. */
export const SCOPE_FILTER = {
  program: 'filterProgramId',
  semester: 'filterSemesterId',
  course: 'filterCourseId',
  room: 'filterRoomId',
  instructor: 'filterInstructorId',
} as const satisfies Record<Exclude<Scope, 'global'>, keyof Webhook>;

/** The secret never leaves the service; `hasSecret` tells whether deliveries are signed. */
export function toWebhookResource(webhook: Webhook): WebhookResource {
  return {
    id: webhook.id,
    url: webhook.url,
    filterScope: webhook.filterScope,
    filterProgramId: webhook.filterProgramId,
    filterSemesterId: webhook.filterSemesterId,
    filterCourseId: webhook.filterCourseId,
    filterRoomId: webhook.filterRoomId,
    filterInstructorId: webhook.filterInstructorId,
    eventTypes: webhook.eventTypes,
    isActive: webhook.isActive,
    hasSecret: webhook.secret !== null,
    disabledReason: webhook.disabledReason,
    disabledAt: webhook.disabledAt?.toISOString() ?? null,
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}
