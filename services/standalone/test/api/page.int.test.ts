import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, type Target } from './support/target.js';

// The page for people, as each run mode serves it: embedded here, and through the stack's gateway and the
// compose file's image when BLACK_BOX_BASE_URL points there (the image serves the files copied into dist/).

let target: Target;

beforeAll(async () => {
  target = await startTarget();
});

afterAll(() => target?.stop());

/** Files the HTML loads (scripts, stylesheets, icons), and modules a script imports, relative to it. */
const LOADED_BY_HTML = /<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"/g;
const IMPORTED_BY_MODULE = /^\s*import\b[^'"]*['"](\.\/[^'"]+)['"]/gm;

const CONTENT_TYPES: Record<string, RegExp> = {
  js: /^text\/javascript|^application\/javascript/,
  css: /^text\/css/,
  svg: /^image\/svg\+xml/,
};

/** Every file the page needs, found by following the HTML and each module's relative imports. */
async function filesOfThePage(html: string): Promise<Map<string, Response>> {
  const fetched = new Map<string, Response>();
  const pending = [...html.matchAll(LOADED_BY_HTML)].map((match) => match[1] as string);
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (fetched.has(path)) continue;
    const response = await fetch(`${target.baseUrl}${path}`);
    fetched.set(path, response);
    if (!path.endsWith('.js') || response.status !== 200) continue;
    const source = await response.clone().text();
    for (const [, relative] of source.matchAll(IMPORTED_BY_MODULE)) pending.push(new URL(relative!, `http://page${path}`).pathname);
  }
  return fetched;
}

describe('GET / serves the page for people', () => {
  it('answers HTML under a Content-Security-Policy that allows only its own origin', async () => {
    const response = await fetch(`${target.baseUrl}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await response.text()).toContain('<a href="/docs">');
  });

  it('serves every file the page loads and every module those import, each with its content type', async () => {
    const html = await (await fetch(`${target.baseUrl}/`)).text();
    const files = await filesOfThePage(html);
    expect(files.size).toBeGreaterThan(5);
    for (const [path, response] of files) {
      expect(response.status, path).toBe(200);
      const extension = path.split('.').pop()!;
      expect(response.headers.get('content-type') ?? '', path).toMatch(CONTENT_TYPES[extension] ?? /./);
    }
  });
});
