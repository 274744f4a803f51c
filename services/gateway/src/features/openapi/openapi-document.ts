import type { z } from 'zod';
import type { ApiRoute } from '@timetable/contracts';
import { routeRules, type RouteRules } from '../authentication/key-routes.js';
import { gatewayPaths } from './gateway-paths.js';
import { SchemaConverter, type JsonSchema } from './schema-converter.js';
import { sharedComponents } from './shared-components.js';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

type ResponseSpec = ApiRoute['responses'][number];

/** Refused by every route that takes a query or a body, whatever else its 400 covers. */
const CONTROL_CHARACTERS = 'or a control character (C0, DEL, C1) in a query parameter or body string, named in the message';

/**
 * The public OpenAPI 3.1 document, built from the route lists the services publish in contracts. Server
 * URLs are relative to the document's own location, so it is right behind any host name.
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[]): OpenApiDocument {
  const converter = new SchemaConverter();
  const rules = routeRules(routes);
  const paths: Record<string, Record<string, unknown>> = { ...gatewayPaths() };
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route, converter, rules) };
  }
  const shared = sharedComponents();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Timetable API',
      version: '1.0.0',
      description:
        'Read-only mirror of the university timetable. Public reads are rate limited per client IP ' +
        '(RateLimit-* headers, 429 with Retry-After); developer and webhook routes need an X-API-Key. ' +
        'The Kafka topics other systems can consume are described in [asyncapi.json](/v1/timetable/asyncapi.json) (AsyncAPI 3.0).',
    },
    servers: [{ url: '/v1/timetable' }],
    tags: [...new Set([...routes.map((route) => route.tag), 'Operations'])].sort().map((name) => ({ name })),
    paths,
    components: {
      ...shared,
      schemas: { ...shared.schemas, ...converter.components },
    },
  };
}

function operation(route: ApiRoute, converter: SchemaConverter, rules: RouteRules): Record<string, unknown> {
  const parameters = [...pathParameters(route, converter), ...queryParameters(route.query, converter)];
  return {
    operationId: operationIdOf(route),
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth ? { security: [{ ApiKey: [] }] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: converter.convert(route.body, 'input') } } } }
      : {}),
    responses: responses(route, converter, rules),
  };
}

/** `get /webhooks/{id}/deliveries` -> `getWebhooksIdDeliveries`: unique because method and path are. */
function operationIdOf(route: ApiRoute): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  return route.method + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

function pathParameters(route: ApiRoute, converter: SchemaConverter): Record<string, unknown>[] {
  const properties = route.params ? objectProperties(route.params, converter).properties : {};
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
  return names.map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
}

function queryParameters(query: z.ZodObject | undefined, converter: SchemaConverter): Record<string, unknown>[] {
  if (!query) return [];
  const { properties, required } = objectProperties(query, converter);
  return Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: required.has(name), schema }));
}

function objectProperties(schema: z.ZodObject, converter: SchemaConverter) {
  const converted = converter.convert(schema, 'input');
  return {
    properties: (converted.properties ?? {}) as Record<string, JsonSchema>,
    required: new Set((converted.required ?? []) as string[]),
  };
}

function responses(route: ApiRoute, converter: SchemaConverter, rules: RouteRules): Record<string, unknown> {
  const documented: Record<string, unknown> = {};
  const takesInput = Boolean(route.query || route.body);
  for (const [status, spec] of Object.entries(route.responses) as [string, ResponseSpec][]) {
    const described = status === '400' && takesInput ? { ...spec, description: `${spec.description}; ${CONTROL_CHARACTERS}` } : spec;
    documented[status] = response(Number(status), described, converter);
  }
  if (takesInput && !documented['400']) documented['400'] = { $ref: '#/components/responses/InvalidInput' };
  if (route.auth && !documented['401']) documented['401'] = { $ref: '#/components/responses/Unauthorized' };
  if (route.method === 'get' && !route.auth && !rules.isDeveloperArea(route.path) && !documented['429']) {
    documented['429'] = { $ref: '#/components/responses/RateLimited' };
  }
  return documented;
}

function response(status: number, spec: ResponseSpec, converter: SchemaConverter): Record<string, unknown> {
  const contentType = spec.contentType ?? 'application/json';
  const headers = spec.retryAfter
    ? { headers: { 'Retry-After': { description: 'Seconds until the request is accepted again', schema: { type: 'integer', minimum: 1 } } } }
    : {};
  if (spec.schema) {
    return { description: spec.description, ...headers, content: { [contentType]: { schema: converter.convert(spec.schema, 'output') } } };
  }
  if (status >= 400) {
    return { description: spec.description, ...headers, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return { description: spec.description, ...headers };
}
