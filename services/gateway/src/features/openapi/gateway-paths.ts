/**
 * The gateway's own operational routes live at the host root, outside /v1/timetable, so they carry a
 * path-level server. /metrics (Prometheus) and /docs (a page) are deliberately left out.
 */
export function gatewayPaths(): Record<string, Record<string, unknown>> {
  const status = (description: string, schema: Record<string, unknown>) => ({
    description,
    content: { 'application/json': { schema } },
  });
  const readiness = {
    type: 'object',
    required: ['status', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ready', 'not ready'] },
      checks: { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'failing'] } },
    },
  };
  return {
    '/health': {
      servers: [{ url: '/' }],
      get: {
        operationId: 'getHealth',
        summary: 'Liveness of the platform',
        tags: ['Operations'],
        responses: {
          200: status('The process is alive', { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }),
        },
      },
    },
    '/ready': {
      servers: [{ url: '/' }],
      get: {
        operationId: 'getReady',
        summary: 'Readiness: every dependency answers',
        tags: ['Operations'],
        responses: { 200: status('Ready', readiness), 503: status('A dependency is failing', readiness) },
      },
    },
  };
}
