import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger } from '@timetable/testing';
import { embeddedSecretsKey, SECRETS_KEY_FILE } from '../src/webhook-secrets-key.js';

const { logger } = captureLogger('fatal');
const directories: string[] = [];
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'secrets-key-'));
  directories.push(directory);
  return path.join(directory, 'data');
}

describe('the embedded mode WEBHOOK_SECRETS_KEY', () => {
  it('is generated once under DATA_DIR and read back on every later start, even by starts racing each other', async () => {
    const directory = await dataDir();
    const keys = await Promise.all(Array.from({ length: 5 }, () => embeddedSecretsKey(directory, undefined, logger)));
    expect(keys[0]).toHaveLength(32);
    expect(new Set(keys.map((key) => key.toString('base64'))).size).toBe(1);
    expect((await readFile(path.join(directory, SECRETS_KEY_FILE), 'utf8')).trim()).toBe(keys[0]!.toString('base64'));
    expect((await embeddedSecretsKey(directory, undefined, logger)).equals(keys[0]!)).toBe(true);
  });

  it('comes from the variable when it is set, and no file is written', async () => {
    const directory = await dataDir();
    const configured = randomBytes(32);
    expect((await embeddedSecretsKey(directory, configured.toString('base64'), logger)).equals(configured)).toBe(true);
    await expect(readFile(path.join(directory, SECRETS_KEY_FILE))).rejects.toThrow();
  });

  it('refuses a key file that does not hold a key, naming the file', async () => {
    const directory = await dataDir();
    await embeddedSecretsKey(directory, undefined, logger);
    await writeFile(path.join(directory, SECRETS_KEY_FILE), 'garbage\n');
    await expect(embeddedSecretsKey(directory, undefined, logger)).rejects.toThrow(`${SECRETS_KEY_FILE} does not hold a WEBHOOK_SECRETS_KEY`);
  });
});
