import type { z } from 'zod';

/**
 * A public route as data: each feature's contract file exports a list of these, the gateway turns
 * them into the OpenAPI 3.1 document, and a test checks every listed route answers as documented.
 */
export interface ApiRoute {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form, relative to /v1/timetable, e.g. `/programs/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** True when the route needs the X-API-Key header. */
  auth: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** `retryAfter`: the answer carries a Retry-After header (seconds). */
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string; retryAfter?: boolean }>;
}
