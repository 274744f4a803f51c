import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Marks a stored secret as ciphertext; anything else in the column is a plaintext row from before encryption. */
export const ENCRYPTED_PREFIX = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** WEBHOOK_SECRETS_KEY: 32 bytes, base64. Throws a message an operator can act on. */
export function parseSecretsKey(base64: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64') !== base64.trim()) {
    throw new Error('must be 32 bytes in base64, e.g. the output of `openssl rand -base64 32`');
  }
  return key;
}

export function generateSecretsKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/**
 * AES-256-GCM for webhook secrets at rest. They must be readable to sign, so they are encrypted rather
 * than hashed. The webhook id is authenticated data: a ciphertext copied to another row does not decrypt.
 */
export class SecretCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a secrets key has ${KEY_BYTES} bytes, not ${key.length}`);
  }

  encrypt(secret: string, webhookId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(webhookId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ENCRYPTED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /** Throws when the value was encrypted with another key or for another webhook, or was altered. */
  decrypt(stored: string, webhookId: string): string {
    if (!isEncrypted(stored)) throw new Error('not an encrypted secret');
    const packed = Buffer.from(stored.slice(ENCRYPTED_PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, packed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(webhookId, 'utf8'));
    decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

export function isEncrypted(stored: string): boolean {
  return stored.startsWith(ENCRYPTED_PREFIX);
}
