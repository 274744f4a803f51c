import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The webhook-dispatcher's WEBHOOK_SECRETS_KEY for a stack: the caller's when given, else one generated
 * for the namespace on its first start and kept beside its logs (`.stack/<namespace>/webhook-secrets.key`),
 * so a stack restarted on its databases still decrypts the webhook secrets it stored.
 */
export function stackSecretsKey(stackDir: string, given: string | undefined): string {
  if (given) return given;
  const file = path.join(stackDir, 'webhook-secrets.key');
  mkdirSync(stackDir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}
