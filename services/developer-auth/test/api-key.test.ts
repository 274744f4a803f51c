import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey, issueApiKey } from '../src/features/api-keys/api-key.js';

describe('issued API keys', () => {
  it('are spk_ followed by 32 base64url characters, 36 in all', () => {
    for (let round = 0; round < 50; round += 1) {
      const { apiKey } = issueApiKey();
      expect(apiKey).toMatch(/^spk_[A-Za-z0-9_-]{32}$/);
      expect(apiKey).toHaveLength(36);
    }
  });

  it('are different every time', () => {
    const keys = new Set(Array.from({ length: 100 }, () => issueApiKey().apiKey));
    expect(keys.size).toBe(100);
  });

  it('come with the sha256 hex of the key and its last 4 characters as the hint', () => {
    const { apiKey, keyHash, apiKeyHint } = issueApiKey();
    expect(keyHash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    expect(hashApiKey(apiKey)).toBe(keyHash);
    expect(apiKeyHint).toBe(apiKey.slice(-4));
  });
});
