import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SYNC_V8_FLAGS } from '@timetable/sync/v8-flags';
import { deployedNodeOptions, serviceNodeOptions } from '../../scripts/stack/deployed-node-options.js';
import { fromRoot, SERVICES } from './support/paths.js';

/**
 * The sync's process needs V8 flags on node's command line (NODE_OPTIONS refuses them): every way it is started
 * as a service of its own passes SYNC_V8_FLAGS, and no other service's process gets them.
 */

// A `node` that prints the arguments it was given, one per line, first on the PATH of the entrypoint's run.
const fakeBin = mkdtempSync(path.join(tmpdir(), 'fake-node-'));
writeFileSync(path.join(fakeBin, 'node'), '#!/bin/sh\nfor argument in "$@"; do printf "%s\\n" "$argument"; done\n');
chmodSync(path.join(fakeBin, 'node'), 0o755);
afterAll(() => rmSync(fakeBin, { recursive: true, force: true }));

function entrypointNodeArguments(...args: string[]): string[] {
  const output = execFileSync('sh', [fromRoot('deploy/docker/run-service.sh'), ...args], { env: { PATH: `${fakeBin}:${process.env.PATH ?? ''}` }, encoding: 'utf8' });
  return output.trimEnd().split('\n');
}

describe("the sync's V8 flags", () => {
  it.each(SERVICES)("are what the image's entrypoint passes to node for %s, and only for the sync", (service) => {
    const flags = service === 'sync' ? SYNC_V8_FLAGS : [];
    expect(entrypointNodeArguments(service, '--an-argument')).toEqual([...flags, `/app/services/${service}/dist/main.js`, '--an-argument']);
  });

  it.each(SERVICES)('are what npm run stack starts %s with, after its NODE_OPTIONS, as the image runs it', (service) => {
    const entrypointFlags = entrypointNodeArguments(service).slice(0, -1);
    expect(serviceNodeOptions(service)).toEqual([...deployedNodeOptions(service), ...entrypointFlags]);
    if (service === 'sync') expect(serviceNodeOptions(service)).toEqual(expect.arrayContaining(['--max-old-space-size=384', ...SYNC_V8_FLAGS]));
  });

  it('are passed by npm run start:sync', () => {
    const scripts = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const startSync = scripts['start:sync']!.split(/\s+/);
    expect(startSync.slice(0, 1 + SYNC_V8_FLAGS.length)).toEqual(['node', ...SYNC_V8_FLAGS]);
    for (const [name, script] of Object.entries(scripts).filter(([name]) => name.startsWith('start:') && name !== 'start:sync')) {
      for (const flag of SYNC_V8_FLAGS) expect(script, name).not.toContain(flag);
    }
  });
});
