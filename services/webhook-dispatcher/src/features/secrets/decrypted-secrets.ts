import type { SecretCipher } from './secret-cipher.js';

/** Decrypted secrets kept, keyed by webhook and ciphertext (a new secret is a new ciphertext). */
const SECRET_CACHE_SIZE = 1000;

/**
 * Webhook secrets decrypted once and kept: a claim holds many deliveries of few webhooks, so decryption is
 * per webhook, not per delivery. When full, the cache starts again empty.
 */
export class DecryptedSecrets {
  private readonly secrets = new Map<string, string>();

  constructor(private readonly cipher: SecretCipher) {}

  decrypt(stored: string, webhookId: string): string {
    const key = `${webhookId}:${stored}`;
    let secret = this.secrets.get(key);
    if (secret === undefined) {
      secret = this.cipher.decrypt(stored, webhookId);
      if (this.secrets.size >= SECRET_CACHE_SIZE) this.secrets.clear();
      this.secrets.set(key, secret);
    }
    return secret;
  }
}
