import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as contracts from '@timetable/contracts';
import type { ApiRoute } from '@timetable/contracts';
import { buildOpenApiDocument } from '@timetable/gateway';
import { startTestGateway } from './support/test-gateway.js';

const program = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'TestProgram' });

const sampleRoutes: ApiRoute[] = [
  {
    method: 'get',
    path: '/programs/{id}',
    summary: 'One program',
    tag: 'Catalog',
    service: 'catalog-api',
    auth: false,
    params: z.object({ id: z.uuid() }),
    responses: { 200: { description: 'The program', schema: z.object({ data: program }) }, 404: { description: 'Unknown id' } },
  },
  {
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    summary: 'Deliveries',
    tag: 'Webhooks',
    service: 'webhook-dispatcher',
    auth: true,
    query: z.object({ page: z.coerce.number().int().min(1).default(1), status: z.enum(['pending', 'failed']).optional() }),
    responses: { 200: { description: 'A page', schema: z.object({ data: z.array(program) }) } },
  },
  {
    method: 'post',
    path: '/webhooks',
    summary: 'Create',
    tag: 'Webhooks',
    service: 'webhook-dispatcher',
    auth: true,
    body: z.object({ url: z.url(), secret: z.string().min(16).optional() }),
    responses: { 201: { description: 'Created' }, 400: { description: 'Invalid body' } },
  },
  {
    method: 'get',
    path: '/ical/{semesterId}',
    summary: 'Feed',
    tag: 'Calendar',
    service: 'catalog-api',
    auth: false,
    responses: { 200: { description: 'iCalendar', contentType: 'text/calendar', schema: z.string() } },
  },
];

/** Deep property access for assertions; a wrong path simply fails the expectation. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loose = (document: object) => document as Record<string, any>;

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for routes with params, query, body, auth, named schemas and other media types', async () => {
    const document = buildOpenApiDocument(sampleRoutes);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
    expect(document.openapi).toBe('3.1.0');
  });

  it('documents the API key scheme, the error envelope on 4xx, 401 on key routes and 429 on public reads', () => {
    const document = loose(buildOpenApiDocument(sampleRoutes));
    expect(document.components.securitySchemes.ApiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }));
    const deliveries = document.paths['/webhooks/{id}/deliveries'].get;
    expect(deliveries.security).toEqual([{ ApiKey: [] }]);
    expect(deliveries.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(deliveries.responses['429']).toBeUndefined();
    // A query or a body can be refused (a control character, a bad value): 400, documented or not by the route.
    expect(deliveries.responses['400']).toEqual({ $ref: '#/components/responses/InvalidInput' });
    expect(document.paths['/webhooks'].post.responses['400'].description).toMatch(/^Invalid body; or a control character/);
    expect(deliveries.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'id', in: 'path', required: true }),
        expect.objectContaining({ name: 'page', in: 'query', required: false }),
      ]),
    );
    const one = document.paths['/programs/{id}'].get;
    expect(one.security).toBeUndefined();
    expect(one.responses['404'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(one.responses['429']).toEqual({ $ref: '#/components/responses/RateLimited' });
    expect(one.responses['400']).toBeUndefined();
    expect(one.responses['200'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/TestProgram' });
    expect(document.components.schemas.TestProgram).toBeDefined();
    expect(JSON.stringify(document)).not.toContain('$schema');
  });

  it('describes /health and /ready at the host root through a path-level server', () => {
    const document = loose(buildOpenApiDocument([]));
    expect(document.servers).toEqual([{ url: '/v1/timetable' }]);
    expect(document.paths['/health'].servers).toEqual([{ url: '/' }]);
  });

  it('covers every route of the contract, and stays valid', async () => {
    const routes = contracts.allApiRoutes;
    const document = buildOpenApiDocument(routes);
    for (const route of routes) expect(document.paths[route.path]?.[route.method], `${route.method} ${route.path}`).toBeDefined();
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('documents the personal feed filters and the free-room window of the published routes', () => {
    const document = loose(buildOpenApiDocument(contracts.allApiRoutes));
    type Parameter = { name: string; required: boolean; schema: { type?: string; anyOf?: { type: string }[] } };
    const typeOf = (schema: Parameter['schema']) => schema.type ?? schema.anyOf?.map((option) => option.type).join('|');
    const parameters = (operation: { parameters: Parameter[] }) =>
      Object.fromEntries(operation.parameters.map((parameter) => [parameter.name, { required: parameter.required, type: typeOf(parameter.schema) }]));
    const feed = document.paths['/ical'].get;
    // A comma-separated list that may also be repeated (`?groupIds=a&groupIds=b`).
    expect(parameters(feed)).toEqual(
      Object.fromEntries(['instructorIds', 'roomIds', 'courseIds', 'groupIds'].map((name) => [name, { required: false, type: 'string|array' }])),
    );
    expect(Object.keys(feed.responses)).toEqual(expect.arrayContaining(['200', '304', '400', '429']));
    expect(feed.responses['200'].content['text/calendar']).toBeDefined();
    const free = document.paths['/rooms/free'].get;
    expect(parameters(free)).toEqual({
      from: { required: true, type: 'string' },
      to: { required: true, type: 'string' },
      building: { required: false, type: 'string' },
      minCapacity: { required: false, type: 'integer' },
    });
    expect(Object.keys(free.responses)).toEqual(expect.arrayContaining(['200', '400', '429']));
  });

  it('documents the change-log cursor and the feeds\' date validators', () => {
    const document = loose(buildOpenApiDocument(contracts.allApiRoutes));
    const changes = document.paths['/changes'].get;
    const after = changes.parameters.find((parameter: { name: string }) => parameter.name === 'after');
    expect(after).toMatchObject({ in: 'query', required: false, schema: { type: 'string', format: 'uuid' } });
    expect(after.schema.description).toMatch(/appended to the log after it, oldest first/);
    expect(changes.responses['400'].description).toMatch(/after/);
    for (const path of ['/ical', '/ical/{semesterId}']) {
      const feed = document.paths[path].get;
      expect(feed.responses['200'].description).toMatch(/Last-Modified/);
      expect(feed.responses['304'].description).toMatch(/If-Modified-Since/);
    }
  });

  it('documents the event listings: one entry per event with its RRULE and excludedDates', () => {
    const document = loose(buildOpenApiDocument(contracts.allApiRoutes));
    type Schema = ReturnType<typeof loose>;
    const resolve = (schema: Schema): Schema =>
      typeof schema.$ref === 'string' ? resolve(document.components.schemas[schema.$ref.split('/').at(-1)!]) : schema;
    for (const path of ['/semesters/{id}/courses', '/programs/{id}/courses', '/instructors/{id}/courses']) {
      const body = resolve(document.paths[path].get.responses['200'].content['application/json'].schema);
      const entry = resolve(resolve(body.properties.data).items);
      expect(entry.required, path).toEqual(expect.arrayContaining(['id', 'startTime', 'endTime', 'weekday', 'recurrenceRule', 'excludedDates']));
      expect(entry.properties.recurrenceRule.description, path).toMatch(/without the 'RRULE:' prefix/);
      expect(resolve(entry.properties.excludedDates).type, path).toBe('array');
      expect(resolve(resolve(entry.properties.excludedDates).items).format, path).toBe('date-time');
    }
  });

  it('documents why and when the system disabled a webhook', () => {
    const document = loose(buildOpenApiDocument(contracts.allApiRoutes));
    type Schema = ReturnType<typeof loose>;
    const resolve = (schema: Schema): Schema =>
      typeof schema.$ref === 'string' ? resolve(document.components.schemas[schema.$ref.split('/').at(-1)!]) : schema;
    const webhook = resolve(resolve(document.paths['/webhooks/{id}'].get.responses['200'].content['application/json'].schema).properties.data);
    expect(webhook.required).toEqual(expect.arrayContaining(['isActive', 'disabledReason', 'disabledAt']));
    expect(webhook.properties.disabledReason.description).toMatch(/WEBHOOK_DISABLE_AFTER_DAYS/);
    expect(webhook.properties.disabledAt.anyOf.map((each: Schema) => each.format ?? each.type)).toEqual(['date-time', 'null']);
  });

  it('documents the webhook limits and the recovery routes', () => {
    const document = loose(buildOpenApiDocument(contracts.allApiRoutes));
    expect(document.paths['/webhooks'].post.responses['409'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    const test = document.paths['/webhooks/{id}/test'].post;
    expect(test.responses['429'].headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
    const redeliver = document.paths['/webhooks/{id}/deliveries/{deliveryId}/redeliver'].post;
    expect(redeliver.security).toEqual([{ ApiKey: [] }]);
    expect(Object.keys(redeliver.responses).sort()).toEqual(['202', '401', '403', '404', '409', '429']);
    expect(redeliver.responses['429'].headers['Retry-After']).toBeDefined();
    expect(redeliver.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['id', 'deliveryId']);
    const recover = document.paths['/webhooks/{id}/recover'].post;
    expect(Object.keys(recover.responses).sort()).toEqual(['202', '400', '401', '403', '404', '409', '429']);
    expect(recover.responses['429'].headers['Retry-After']).toBeDefined();
    const register = document.paths['/developers/register'].post;
    expect(Object.keys(register.responses).sort()).toEqual(['201', '400', '409', '429']);
    expect(register.responses['429'].description).toContain('REGISTER_LIMITS');
    expect(register.responses['429'].headers['Retry-After']).toBeDefined();
    expect(recover.requestBody.content['application/json'].schema.required).toEqual(['since']);
  });

  it('is served at /v1/timetable/openapi.json', async () => {
    const gateway = await startTestGateway({ apiRoutes: sampleRoutes });
    try {
      const response = await fetch(`${gateway.api}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      const served = (await response.json()) as { paths: Record<string, unknown> };
      expect(Object.keys(served.paths)).toEqual(expect.arrayContaining(['/programs/{id}', '/webhooks', '/health']));
    } finally {
      await gateway.close();
    }
  });
});
