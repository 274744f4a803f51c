import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/test-gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ legacyHosts: ['old.example.edu'] });
});
afterAll(() => gateway.close());

/** What the page loads: scripts, stylesheets, icons. */
const LOADED = /<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g;

async function page(): Promise<string> {
  return (await fetch(`${gateway.origin}/`)).text();
}

function withHost(path: string, host: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, gateway.origin), { headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET / (the page for people)', () => {
  it('is HTML with a strict Content-Security-Policy that allows nothing inline and nothing from elsewhere', async () => {
    const response = await fetch(`${gateway.origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
      expect(policy).toContain(directive);
    }
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('has no inline script, no inline style and no style attribute, and loads only its own files', async () => {
    const html = await page();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/\son[a-z]+=/);
    const loaded = [...html.matchAll(LOADED)].map((match) => match[1] as string);
    expect(loaded.length).toBeGreaterThanOrEqual(3);
    for (const path of loaded) {
      expect(path.startsWith('/page/'), path).toBe(true);
      expect((await fetch(`${gateway.origin}${path}`)).status, path).toBe(200);
    }
  });

  it('links the API reference', async () => {
    expect(await page()).toContain('<a href="/docs">');
  });

  it('serves every file with an ETag and answers a matching If-None-Match with 304', async () => {
    for (const path of ['/', '/page/main.js', '/page/styles.css']) {
      const first = await fetch(`${gateway.origin}${path}`);
      await first.arrayBuffer();
      const etag = first.headers.get('etag');
      expect(etag, path).toMatch(/^"[\w-]+"$/);
      expect(first.headers.get('cache-control'), path).toBe('no-cache');
      const again = await fetch(`${gateway.origin}${path}`, { headers: { 'If-None-Match': etag! } });
      expect(again.status, path).toBe(304);
      expect(await again.text(), path).toBe('');
    }
  });

  it('serves scripts as JavaScript and the stylesheet as CSS', async () => {
    expect((await fetch(`${gateway.origin}/page/main.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${gateway.origin}/page/styles.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('serves nothing else of its folder and nothing outside it: those are unknown routes in the envelope', async () => {
    for (const path of ['/page/tsconfig.json', '/page/index.html', '/page/..%2Fpage-routes.ts', '/page/', '/page/missing.js']) {
      const response = await fetch(`${gateway.origin}${path}`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('NOT_FOUND');
    }
  });
});

describe('the paths around the page keep their rules', () => {
  it('answers any other unknown path with the envelope 404', async () => {
    for (const path of ['/index.html', '/nope', '/v1/timetable/nope']) {
      const response = await fetch(`${gateway.origin}${path}`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { message: string } }).error.message, path).toMatch(/^Route GET .* not found$/);
    }
  });

  it('redirects / on a legacy host like every other path there', async () => {
    expect(await withHost('/', 'old.example.edu')).toEqual({ status: 301, location: 'https://api.example.edu/' });
    expect((await withHost('/api/v1/courses', 'localhost')).location).toBe('https://api.example.edu/v1/timetable/courses');
  });

  it('leaves /docs the API reference', async () => {
    const docs = await fetch(`${gateway.origin}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
  });
});
