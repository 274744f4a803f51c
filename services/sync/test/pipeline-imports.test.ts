import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Sync's feature folders are the stages of its pipeline: read, validate, normalise, diff, write, then the
 * run that drives them and the routes that answer from what it wrote. Each may use the stages before it,
 * never one after it, so the folders read top to bottom and no two import each other. `validate` holds what
 * an upstream record must be to enter and comes before `read` here, because the reader applies it at the
 * boundary as it decodes each answer: what leaves `read` is validated.
 */
const STAGES = ['validate', 'read', 'normalise', 'diff', 'write', 'runs', 'status', 'ical-url'];
const FEATURES = join(import.meta.dirname, '..', 'src', 'features');

function importedStages(stage: string): string[] {
  const sources = readdirSync(join(FEATURES, stage)).map((file) => readFileSync(join(FEATURES, stage, file), 'utf8'));
  const imported = sources.flatMap((source) => [...source.matchAll(/from '\.\.\/([a-z-]+)\//g)].map((match) => match[1]!));
  return [...new Set(imported)].sort();
}

describe("sync's folders as a pipeline", () => {
  it('has a stage for every folder', () => {
    expect(readdirSync(FEATURES).sort()).toEqual([...STAGES].sort());
  });

  it.each(STAGES.map((stage, index) => [stage, STAGES.slice(0, index)]))('%s imports only earlier stages', (stage, earlier) => {
    for (const imported of importedStages(stage)) expect(earlier, `${stage} imports ${imported}`).toContain(imported);
  });
});
