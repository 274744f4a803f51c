import type { Knex } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import { ENCRYPTED_PREFIX, type SecretCipher } from './secret-cipher.js';

/**
 * Run at start, before anything reads a secret: refuses a key that cannot decrypt what is stored (a
 * changed or mistyped WEBHOOK_SECRETS_KEY would otherwise make every signed delivery fail), then encrypts
 * rows written in plaintext before secrets were encrypted. Idempotent, so replicas may run it together.
 */
export async function prepareStoredSecrets(knex: Knex, cipher: SecretCipher, logger: Logger): Promise<void> {
  const sample = await knex('webhooks').whereLike('secret', `${ENCRYPTED_PREFIX}%`).first<{ id: string; secret: string } | undefined>('id', 'secret');
  if (sample) {
    try {
      cipher.decrypt(sample.secret, sample.id);
    } catch {
      throw new Error('WEBHOOK_SECRETS_KEY does not decrypt the stored webhook secrets: it is not the key they were encrypted with');
    }
  }
  const plaintext: { id: string; secret: string }[] = await knex('webhooks')
    .whereNotNull('secret')
    .whereRaw('secret not like ?', [`${ENCRYPTED_PREFIX}%`])
    .select('id', 'secret');
  for (const row of plaintext) {
    await knex('webhooks').where({ id: row.id, secret: row.secret }).update({ secret: cipher.encrypt(row.secret, row.id) });
  }
  if (plaintext.length > 0) logger.info({ webhooks: plaintext.length }, 'encrypted webhook secrets stored in plaintext');
}
