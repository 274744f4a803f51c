import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';

const API_PREFIX = '/v1/timetable';

/** Parsed response bodies are asserted field by field; a loose type keeps the tests readable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  body: Json;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Serialised as JSON with a JSON content type. */
  json?: unknown;
  /** Sent as is, for malformed bodies. */
  rawBody?: string;
  apiKey?: string;
}

export interface Developer {
  id: string;
  email: string;
  apiKey: string;
}

/** Plain HTTP against one base URL: the tests see nothing but status, headers and bodies. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  /** `path` relative to /v1/timetable, e.g. `/programs?search=x`. */
  api(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.root(method, `${API_PREFIX}${path}`, options);
  }

  get(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.api('GET', path, options);
  }

  post(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.api('POST', path, options);
  }

  /** `path` relative to the origin, redirects not followed. */
  async root(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey !== undefined) headers['X-API-Key'] = options.apiKey;
    let body: string | undefined;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.rawBody !== undefined) body = options.rawBody;
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseJson(text) };
  }

  /** A fresh developer with a unique email, so reruns against a long-lived stack never collide. */
  async registerDeveloper(name?: string): Promise<Developer> {
    const email = uniqueEmail();
    const response = await this.post('/developers/register', { json: name === undefined ? { email } : { email, name } });
    expect(response.status, response.text).toBe(201);
    return { id: response.body.data.id, email, apiKey: response.body.data.apiKey };
  }
}

export function uniqueEmail(label = 'dev'): string {
  return `${label}-${randomUUID()}@example.edu`;
}

/** The error envelope every non-2xx answer carries: `{error: {code, message, details}}`. */
export function expectError(response: ApiResponse, status: number, code?: string, message?: string | RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body, response.text).toEqual({
    error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) },
  });
  if (code !== undefined) expect(response.body.error.code).toBe(code);
  if (typeof message === 'string') expect(response.body.error.message).toBe(message);
  if (message instanceof RegExp) expect(response.body.error.message).toMatch(message);
}

function parseJson(text: string): Json {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
