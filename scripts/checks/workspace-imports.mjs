#!/usr/bin/env node
/**
 * Fails when a workspace imports another workspace (`@timetable/*`) that its package.json does not declare in
 * dependencies or devDependencies: npm links every workspace at the root, so an undeclared import works here
 * and breaks the day the package is built, installed or deployed on its own. For the same reason a package's
 * production code (`src/`) must list every third-party package it imports in its own dependencies; its tests
 * may also use the development tools the root declares (vitest, fast-check, ...).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const IMPORT = /(?:from|import)\s*\(?\s*'(@timetable\/[a-z0-9-]+)/g;
/** What a statement of production code imports from: `import ... from 'x'`, `export ... from 'x'`, `import 'x'`. */
const STATEMENT_SOURCE = /^\s*(?:(?:import|export)\b[^;'"]*?\bfrom|import)\s*['"]([^'"]+)['"]/gm;

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [full] : [];
  });
}

const problems = [];
for (const group of ['libs', 'services', 'tools']) {
  for (const name of readdirSync(path.join(root, group))) {
    const dir = path.join(root, group, name);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const declared = new Set([manifest.name, ...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
    for (const file of sourceFiles(dir)) {
      for (const [, imported] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        if (!declared.has(imported)) problems.push(`${path.relative(root, file)} imports ${imported}, which ${manifest.name} does not declare`);
      }
    }
    // Production code declares its third-party packages too (tests may use the root's dev tools).
    const runtime = new Set([manifest.name, ...Object.keys(manifest.dependencies ?? {})]);
    const srcDir = path.join(dir, 'src');
    for (const file of existsSync(srcDir) ? sourceFiles(srcDir) : []) {
      for (const [, source] of readFileSync(file, 'utf8').matchAll(STATEMENT_SOURCE)) {
        if (source.startsWith('.') || source.startsWith('node:') || builtinModules.includes(source)) continue;
        const imported = source.startsWith('@') ? source.split('/').slice(0, 2).join('/') : source.split('/')[0];
        if (runtime.has(imported)) continue;
        problems.push(`${path.relative(root, file)} imports ${imported}, which ${manifest.name} does not list in dependencies`);
      }
    }
  }
}
if (problems.length > 0) {
  process.stderr.write(`${[...new Set(problems)].join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('every workspace declares the workspaces it imports, and its production code its packages\n');
