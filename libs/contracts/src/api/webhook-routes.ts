import { z } from 'zod';
import { defineRoutes } from './api-route.js';

/** Webhook resources and inputs: the service validates with these, the gateway documents them. */

export const webhookEventTypes = ['created', 'updated', 'deleted'] as const;
export const webhookScopes = ['global', 'program', 'semester', 'course', 'room', 'instructor'] as const;
export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

const timestamp = z.iso.datetime();
const eventTypes = z.array(z.enum(webhookEventTypes)).min(1, 'must list at least one of created, updated, deleted');
const webhookUrl = z.url({ protocol: /^https?$/, message: 'must be an absolute http or https URL' }).max(2048);
const secret = z.string().min(16, 'must be 16 to 255 characters').max(255, 'must be 16 to 255 characters');

const filterIds = {
  filterProgramId: z.uuid().nullable().optional(),
  filterSemesterId: z.uuid().nullable().optional(),
  filterCourseId: z.uuid().nullable().optional(),
  filterRoomId: z.uuid().nullable().optional(),
  filterInstructorId: z.uuid().nullable().optional(),
};

/** Unknown fields are rejected, so a typo such as `filterProgramID` cannot silently create a global webhook. */
export const webhookCreateInput = z.strictObject({
  url: webhookUrl,
  secret: secret.nullable().optional(),
  filterScope: z.enum(webhookScopes).default('global'),
  ...filterIds,
  eventTypes: eventTypes.default([...webhookEventTypes]),
  isActive: z.boolean().default(true),
});

/** Every field optional; `null` clears the secret or a filter id. */
export const webhookUpdateInput = z.strictObject({
  url: webhookUrl.optional(),
  secret: secret.nullable().optional(),
  filterScope: z.enum(webhookScopes).optional(),
  ...filterIds,
  eventTypes: eventTypes.optional(),
  isActive: z.boolean().optional(),
});

export const webhookResource = z.object({
  id: z.uuid(),
  url: z.string(),
  filterScope: z.enum(webhookScopes),
  filterProgramId: z.uuid().nullable(),
  filterSemesterId: z.uuid().nullable(),
  filterCourseId: z.uuid().nullable(),
  filterRoomId: z.uuid().nullable(),
  filterInstructorId: z.uuid().nullable(),
  eventTypes: z.array(z.enum(webhookEventTypes)),
  isActive: z.boolean(),
  hasSecret: z.boolean(),
  disabledReason: z.string().nullable().describe('Why the system disabled the webhook (its deliveries all failed for WEBHOOK_DISABLE_AFTER_DAYS); null unless it did. Setting isActive to true clears it.'),
  disabledAt: timestamp.nullable().describe('When the system disabled the webhook; null unless it did'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const deliveryResource = z.object({
  id: z.uuid(),
  webhookId: z.uuid(),
  eventType: z.string(),
  /** The body of the latest attempt; null while no attempt has been made. */
  payload: z.record(z.string(), z.unknown()).nullable(),
  status: z.enum(deliveryStatuses),
  attempts: z.number().int(),
  lastAttemptAt: timestamp.nullable(),
  nextRetryAt: timestamp.nullable(),
  responseCode: z.number().int().nullable(),
  responseBody: z.string().nullable(),
  errorMessage: z.string().nullable(),
  deliveredAt: timestamp.nullable(),
  createdAt: timestamp,
});

/** A limit above 200 is capped at 200 by the service; a non-integer or a value below 1 is a 400. */
export const deliveriesQuery = z.object({
  status: z.enum(deliveryStatuses).optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).default(50),
});

/** How far back `recover` may reach. */
export const RECOVER_MAX_DAYS = 30;

/** `since`: an instant at most 30 days back (the service checks the distance against its clock). */
export const recoverInput = z.strictObject({
  since: z.iso.datetime({ offset: true }).describe(`ISO 8601 instant, at most ${RECOVER_MAX_DAYS} days ago`),
});

export type WebhookCreateInput = z.infer<typeof webhookCreateInput>;
export type WebhookUpdateInput = z.infer<typeof webhookUpdateInput>;
export type WebhookResource = z.infer<typeof webhookResource>;
export type DeliveryResource = z.infer<typeof deliveryResource>;
export type DeliveriesQuery = z.infer<typeof deliveriesQuery>;
export type RecoverInput = z.infer<typeof recoverInput>;

// A malformed id is an unknown id (404), so path ids are plain strings here and looked up as such.
const webhookId = z.string().describe('Webhook UUID; a malformed id is an unknown id (404)');
const idParam = z.object({ id: webhookId });
const deliveryParams = z.object({ id: webhookId, deliveryId: z.string().describe('Delivery UUID; a malformed id is an unknown id (404)') });
const one = z.object({ data: webhookResource });
const message = z.object({ message: z.string() });
const deliveryPage = z.object({
  data: z.array(deliveryResource),
  meta: z.object({ total: z.number().int(), page: z.number().int(), limit: z.number().int(), totalPages: z.number().int() }),
});
const denied = {
  401: { description: 'Missing or invalid X-API-Key' },
  403: { description: 'The webhook belongs to another developer' },
  404: { description: 'Unknown webhook id' },
};
const inactive = { 409: { description: 'The webhook is inactive (isActive false)' } };
const tag = 'Webhooks';

export const webhooksApi = defineRoutes('webhook-dispatcher', {
  create: {
    method: 'post', path: '/webhooks', summary: 'Create a webhook', tag, auth: true, body: webhookCreateInput,
    responses: {
      201: { description: 'The created webhook', schema: one },
      400: { description: 'Invalid body' },
      401: denied[401],
      409: { description: 'The developer already owns the maximum number of webhooks (MAX_WEBHOOKS_PER_DEVELOPER, default 25)' },
    },
  },
  list: {
    method: 'get', path: '/webhooks', summary: "List the caller's webhooks", tag, auth: true,
    responses: { 200: { description: "The caller's webhooks", schema: z.object({ data: z.array(webhookResource) }) }, 401: denied[401] },
  },
  get: {
    method: 'get', path: '/webhooks/{id}', summary: 'Inspect a webhook', tag, auth: true, params: idParam,
    responses: { 200: { description: 'The webhook', schema: one }, ...denied },
  },
  update: {
    method: 'patch', path: '/webhooks/{id}', summary: 'Update a webhook', tag, auth: true, params: idParam, body: webhookUpdateInput,
    responses: { 200: { description: 'The updated webhook', schema: one }, 400: { description: 'Invalid body' }, ...denied },
  },
  remove: {
    method: 'delete', path: '/webhooks/{id}', summary: 'Delete a webhook; its pending deliveries fail', tag, auth: true, params: idParam,
    responses: { 200: { description: 'Confirmation', schema: message }, ...denied },
  },
  deliveries: {
    method: 'get', path: '/webhooks/{id}/deliveries', summary: 'List deliveries, newest first', tag, auth: true,
    params: idParam, query: deliveriesQuery,
    responses: { 200: { description: 'One page of deliveries', schema: deliveryPage }, 400: { description: 'Invalid query' }, ...denied },
  },
  test: {
    method: 'post', path: '/webhooks/{id}/test', summary: 'Queue a test.created delivery (scope ignored)', tag, auth: true, params: idParam,
    responses: {
      204: { description: 'Queued' },
      ...denied,
      429: { description: 'More than 10 test deliveries for this webhook in the last minute; Retry-After says when the next is accepted', retryAfter: true },
    },
  },
  redeliver: {
    method: 'post', path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver', summary: 'Queue the same change again as a new delivery, due now',
    tag, auth: true, params: deliveryParams,
    responses: {
      202: { description: 'The new delivery', schema: z.object({ data: deliveryResource }) },
      ...denied,
      404: { description: 'Unknown webhook id, or no such delivery of this webhook' },
      ...inactive,
      429: {
        description:
          'More than 10 redeliveries for this webhook in the last minute; a redelivered test delivery is a test and counts against the ' +
          'test limit instead. Retry-After says when the next is accepted',
        retryAfter: true,
      },
    },
  },
  recover: {
    method: 'post', path: '/webhooks/{id}/recover', summary: 'Queue a new delivery of every change since an instant whose delivery failed',
    tag, auth: true, params: idParam, body: recoverInput,
    responses: {
      202: { description: 'How many deliveries were queued', schema: z.object({ data: z.object({ enqueued: z.number().int() }) }) },
      400: { description: `since missing, unparseable or more than ${RECOVER_MAX_DAYS} days ago` },
      ...denied,
      ...inactive,
      429: { description: 'A recover for this webhook was accepted less than a minute ago; Retry-After says when the next is', retryAfter: true },
    },
  },
});
