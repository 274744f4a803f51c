import { z } from 'zod';
import { defineRoutes } from './api-route.js';

const TAG = 'Developers';
const instant = z.iso.datetime();
const apiKey = z.string().regex(/^spk_[A-Za-z0-9_-]{32}$/).describe('Shown only once; store it securely');
const apiKeyHint = z.string().length(4).describe('Last 4 characters of the key');

export const registerDeveloperBody = z.object({
  email: z.email().max(254),
  name: z.string().max(100).nullish(),
});

export type RegisterDeveloperBody = z.infer<typeof registerDeveloperBody>;

/** The developer account as GET /developers/me returns it; the raw key is never part of it. */
export const developerAccount = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  apiKeyHint,
  isActive: z.boolean(),
  createdAt: instant,
  updatedAt: instant,
  _count: z.object({ webhooks: z.number().int() }),
});

export const developerUsage = z.object({
  total: z.number().int(),
  byEndpoint: z.array(z.object({ endpoint: z.string().describe('"<METHOD> <route pattern>"'), _count: z.number().int() })).max(10),
  period: z.object({ from: instant, to: instant }),
});

const message = z.string();
const unauthorized = { description: 'Missing, invalid or revoked X-API-Key' };

export const developersApi = defineRoutes('developer-auth', {
  register: {
    method: 'post',
    path: '/developers/register',
    summary: 'Register a developer account and receive an API key',
    tag: TAG,
    auth: false,
    body: registerDeveloperBody,
    responses: {
      201: {
        description: 'Account created; the only response besides regenerate-key that reveals the key',
        schema: z.object({
          data: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable(), apiKey, apiKeyHint, createdAt: instant }),
          message,
        }),
      },
      400: { description: 'Invalid body' },
      409: { description: 'Email already registered' },
      429: {
        description:
          'This client address (an IPv4 address or an IPv6 /64) spent its sign-up budget (REGISTER_LIMITS, default 5 a minute and 20 a day; ' +
          'every attempt counts); Retry-After says when the next is accepted',
        retryAfter: true,
      },
    },
  },
  account: {
    method: 'get',
    path: '/developers/me',
    summary: 'The calling developer account',
    tag: TAG,
    auth: true,
    responses: { 200: { description: 'The account', schema: z.object({ data: developerAccount }) }, 401: unauthorized },
  },
  regenerateKey: {
    method: 'post',
    path: '/developers/regenerate-key',
    summary: 'Replace the API key; the old key stops working at once',
    tag: TAG,
    auth: true,
    responses: {
      200: { description: 'The new key', schema: z.object({ data: z.object({ apiKey, apiKeyHint }), message }) },
      401: unauthorized,
    },
  },
  deactivate: {
    method: 'post',
    path: '/developers/deactivate',
    summary: 'Disable the account; its key is rejected afterwards',
    tag: TAG,
    auth: true,
    responses: { 200: { description: 'Account deactivated', schema: z.object({ message }) }, 401: unauthorized },
  },
});

export const developerUsageApi = defineRoutes('developer-auth', {
  usage: {
    method: 'get',
    path: '/developers/usage',
    summary: 'Requests made with the key over the trailing 30 days',
    tag: TAG,
    auth: true,
    responses: { 200: { description: 'Usage summary, top 10 endpoints', schema: z.object({ data: developerUsage }) }, 401: unauthorized },
  },
});
