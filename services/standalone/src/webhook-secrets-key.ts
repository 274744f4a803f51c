import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@timetable/observability';
import { generateSecretsKey, parseSecretsKey } from '@timetable/webhook-dispatcher';

export const SECRETS_KEY_FILE = 'webhook-secrets.key';

/**
 * The embedded mode's WEBHOOK_SECRETS_KEY: the variable when set, else a key generated on first start and
 * kept in DATA_DIR beside the database whose secrets it encrypts. Created with an exclusive link, so two
 * processes starting on one directory end up with the same key; readable by its owner only.
 */
export async function embeddedSecretsKey(dataDir: string, configured: string | undefined, logger: Logger): Promise<Buffer> {
  if (configured) return parseSecretsKey(configured);
  const file = path.resolve(dataDir, SECRETS_KEY_FILE);
  const existing = await readKeyFile(file);
  if (existing) return existing;
  await mkdir(path.dirname(file), { recursive: true });
  const draft = `${file}.${randomUUID()}.tmp`;
  await writeFile(draft, `${generateSecretsKey()}\n`, { mode: 0o600 });
  try {
    await link(draft, file);
    logger.info({ file }, 'generated WEBHOOK_SECRETS_KEY for the embedded mode');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(draft, { force: true });
  }
  const created = await readKeyFile(file);
  if (!created) throw new Error(`could not create ${file}`);
  return created;
}

async function readKeyFile(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return parseSecretsKey(text.trim());
  } catch (error) {
    throw new Error(`${file} does not hold a WEBHOOK_SECRETS_KEY: ${(error as Error).message}`);
  }
}
