import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/test-gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ legacyHosts: ['old.example.edu'] });
});
afterAll(() => gateway.close());

/** node:http, because fetch may not send a custom Host header. */
function call(path: string, host?: string): Promise<{ status: number; location: string | undefined; body: { error: { code: string } } }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, gateway.origin);
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the retired /api/v1 prefix', () => {
  it('redirects 301 to the absolute public URL under /v1/timetable, query kept', async () => {
    const response = await call('/api/v1/courses?semesterId=abc&q=%C3%A4');
    expect(response.status).toBe(301);
    expect(response.location).toBe('https://api.example.edu/v1/timetable/courses?semesterId=abc&q=%C3%A4');
    expect(response.body.error).toMatchObject({ code: 'MOVED_PERMANENTLY' });
  });

  it('maps the bare prefix and nested developer and webhook paths one to one', async () => {
    expect((await call('/api/v1')).location).toBe('https://api.example.edu/v1/timetable');
    expect((await call('/api/v1/webhooks/x/deliveries?page=2')).location).toBe(
      'https://api.example.edu/v1/timetable/webhooks/x/deliveries?page=2',
    );
  });

  it('answers 410 GONE for the export endpoints', async () => {
    for (const path of ['/api/v1/export', '/api/v1/export/courses.csv?x=1']) {
      const response = await call(path);
      expect(response.status).toBe(410);
      expect(response.body.error.code).toBe('GONE');
    }
  });

  it('redirects the old health route to the platform /health', async () => {
    const response = await call('/api/v1/health');
    expect(response.status).toBe(301);
    expect(response.location).toBe('https://api.example.edu/health');
  });

  it('does not touch look-alike paths', async () => {
    expect((await call('/api/v10/courses')).status).toBe(404);
  });
});

describe('legacy hosts', () => {
  it('redirect every request to the public base URL, same path and query', async () => {
    const health = await call('/health', 'old.example.edu');
    expect(health.status).toBe(301);
    expect(health.location).toBe('https://api.example.edu/health');
    const read = await call('/v1/timetable/programs?x=1', 'OLD.example.edu:8080');
    expect(read.location).toBe('https://api.example.edu/v1/timetable/programs?x=1');
  });

  it('apply the /api/v1 mapping too', async () => {
    const response = await call('/api/v1/rooms?building=A', 'old.example.edu');
    expect(response.location).toBe('https://api.example.edu/v1/timetable/rooms?building=A');
    expect((await call('/api/v1/export/x', 'old.example.edu')).status).toBe(410);
  });

  it('leave other hosts alone', async () => {
    expect((await call('/health', 'api.example.edu')).status).toBe(200);
  });
});
