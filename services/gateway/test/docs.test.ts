import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/test-gateway.js';

let gateway: TestGateway;
/** What the page loads (scripts, stylesheets, icons), as opposed to what it links to. */
const ASSET = /<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway.close());

describe('the /docs reference page', () => {
  it('is HTML that loads only local assets and points swagger-ui at the OpenAPI document', async () => {
    const response = await fetch(`${gateway.origin}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    const assets = [...html.matchAll(ASSET)].map((match) => match[1] as string);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) expect(asset.startsWith('/docs/'), asset).toBe(true);
    const initializer = await (await fetch(`${gateway.origin}/docs/initializer.js`)).text();
    expect(initializer).toContain('"/v1/timetable/openapi.json"');
  });

  it('serves every asset it references from node_modules (works offline)', async () => {
    const html = await (await fetch(`${gateway.origin}/docs`)).text();
    for (const [, asset] of html.matchAll(ASSET)) {
      const response = await fetch(`${gateway.origin}${asset}`);
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    const bundle = await fetch(`${gateway.origin}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.headers.get('content-type')).toContain('javascript');
    await bundle.body?.cancel();
  });

  it('links the OpenAPI and the AsyncAPI documents, and both answer', async () => {
    const html = await (await fetch(`${gateway.origin}/docs`)).text();
    const links = [...html.matchAll(/<a\b[^>]*href="([^"]+)"/g)].map((match) => match[1] as string);
    expect(links).toEqual(['/v1/timetable/openapi.json', '/v1/timetable/asyncapi.json']);
    for (const link of links) expect((await fetch(`${gateway.origin}${link}`)).status, link).toBe(200);
  });

  it('does not serve other files of the package or escape its folder', async () => {
    for (const path of ['/docs/assets/index.html', '/docs/assets/..%2Fpackage.json', '/docs/assets/swagger-initializer.js']) {
      expect((await fetch(`${gateway.origin}${path}`)).status, path).toBe(404);
    }
  });
});
