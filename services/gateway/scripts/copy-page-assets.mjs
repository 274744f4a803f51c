#!/usr/bin/env node
/**
 * Part of `npm run build`: the page's files are served as they are, so the build copies them beside the
 * compiled routes (dist/features/page/assets), where the built gateway looks for them.
 */
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../src/features/page/assets/', import.meta.url));
const target = fileURLToPath(new URL('../dist/features/page/assets/', import.meta.url));
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true, filter: (path) => !path.endsWith('tsconfig.json') });
