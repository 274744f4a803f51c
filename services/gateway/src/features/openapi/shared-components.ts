/** Components every operation may point at: the error envelope, the API key scheme, 400, 401 and 429. */
export function sharedComponents() {
  const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const seconds = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
  return {
    schemas: {
      Error: {
        type: 'object',
        description: 'The body of every non-2xx response. Only code and message are stable.',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message', 'details'],
            properties: {
              code: { type: 'string', examples: ['NOT_FOUND', 'UNAUTHORIZED', 'VALIDATION_ERROR', 'RATE_LIMITED'] },
              message: { type: 'string' },
              details: { type: 'object' },
            },
          },
        },
      },
    },
    securitySchemes: {
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Developer key: `spk_` followed by 32 characters.' },
    },
    responses: {
      InvalidInput: {
        description:
          'VALIDATION_ERROR naming the parameter: a value it does not accept, ' +
          'or a control character (C0, DEL, C1) in a query parameter or body string',
        content: errorContent,
      },
      Unauthorized: {
        description: 'X-API-Key missing (`Missing X-API-Key header`) or unknown, revoked or inactive (`Invalid or revoked API key`)',
        content: errorContent,
      },
      RateLimited: {
        description: 'A rate tier (per second, minute or hour, per client IP) is exhausted',
        headers: {
          'Retry-After': seconds('Seconds until the exhausted tier resets'),
          'RateLimit-Limit': seconds('Requests allowed in the tightest tier'),
          'RateLimit-Remaining': seconds('Requests left in that tier'),
          'RateLimit-Reset': seconds('Seconds until that tier resets'),
        },
        content: errorContent,
      },
    },
  };
}
