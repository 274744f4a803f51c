import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROCESS_DEFINITIONS } from '@timetable/standalone';
import { fromRoot, SERVICES } from './support/paths.js';

interface Stage {
  name: string | undefined;
  instructions: { keyword: string; args: string }[];
}

/** Dockerfile instructions by stage, with line continuations joined and comments dropped. */
function stagesOf(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') stages.push({ name: /\bAS\s+(\S+)$/i.exec(args)?.[1], instructions: [] });
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

const stages = stagesOf(readFileSync(fromRoot('deploy/docker/Dockerfile'), 'utf8'));
const runtime = stages.at(-1)!;
const runtimeArgs = (keyword: string) => runtime.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);

describe('deploy/docker/Dockerfile', () => {
  it('is a multi-stage build whose COPY --from names earlier stages', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const names = stages.map((stage) => stage.name);
    for (const [index, stage] of stages.entries()) {
      for (const { args } of stage.instructions.filter((instruction) => instruction.keyword === 'COPY')) {
        const from = /--from=(\S+)/.exec(args)?.[1];
        if (from) expect(names.slice(0, index)).toContain(from);
      }
    }
  });

  it('builds with npm ci and tsc -b, and runs the compiled output', () => {
    const build = stages.find((stage) => stage.name === 'build')!.instructions.map((instruction) => instruction.args).join('\n');
    expect(build).toMatch(/npm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(readFileSync(fromRoot('deploy/docker/run-service.sh'), 'utf8')).toMatch(/dist\/main\.js/);
  });

  it('runs as a non-root user', () => {
    const users = runtimeArgs('USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
  });

  it('has a HEALTHCHECK and picks the service by its command', () => {
    expect(runtimeArgs('HEALTHCHECK').join(' ')).toMatch(/CMD/);
    expect(runtimeArgs('ENTRYPOINT')).toHaveLength(1);
    // The entrypoint runs the services the build listed from their definitions.
    const build = stages.find((stage) => stage.name === 'build')!.instructions.map((instruction) => instruction.args).join('\n');
    expect(build).toMatch(/node services\/standalone\/dist\/print-service-names\.js > \/out\/service-names/);
  });

  it('the entrypoint refuses an unknown name with 64, listing every defined service', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'run-service-'));
    const namesFile = path.join(directory, 'service-names');
    writeFileSync(namesFile, `${PROCESS_DEFINITIONS.map((definition) => definition.name).join('\n')}\n`);
    const run = spawnSync('sh', [fromRoot('deploy/docker/run-service.sh'), 'no-such-service'], { env: { ...process.env, SERVICE_NAMES_FILE: namesFile }, encoding: 'utf8' });
    rmSync(directory, { recursive: true, force: true });
    expect(run.status).toBe(64);
    expect(run.stderr).toContain("unknown service 'no-such-service'");
    for (const name of SERVICES) expect(run.stderr, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('knows the processes the deployment files name: one per process definition', () => {
    expect([...SERVICES].sort()).toEqual(PROCESS_DEFINITIONS.map((definition) => definition.name).sort());
  });
});
