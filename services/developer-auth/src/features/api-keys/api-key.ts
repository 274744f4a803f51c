import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'spk_';
const KEY_BYTES = 24;
const HINT_LENGTH = 4;

export interface IssuedKey {
  /** Returned to the caller once and never stored. */
  apiKey: string;
  keyHash: string;
  apiKeyHint: string;
}

/** `spk_` + 24 random bytes in base64url: 36 characters in all. */
export function issueApiKey(): IssuedKey {
  const apiKey = `${API_KEY_PREFIX}${randomBytes(KEY_BYTES).toString('base64url')}`;
  return { apiKey, keyHash: hashApiKey(apiKey), apiKeyHint: apiKey.slice(-HINT_LENGTH) };
}

/**
 * A fast unsalted hash is enough here: the key carries 192 random bits, so there is nothing to brute-force,
 * and a deterministic hash lets a key be found by an indexed lookup.
 */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}
