import { timingSafeEqual } from 'node:crypto';
import type { KeyVerifier } from '@timetable/contracts';
import type { DeveloperStore } from '../developers/developer-store.js';
import { API_KEY_PREFIX, hashApiKey } from './api-key.js';

export interface DeveloperKeyVerifierDeps {
  store: DeveloperStore;
}

/**
 * Resolves a key to its active developer. The hash finds the row through the unique index; comparing the
 * stored hash in constant time afterwards keeps the answer's timing independent of how much of it matched.
 * Never logs the key.
 */
export class DeveloperKeyVerifier implements KeyVerifier {
  private readonly store: DeveloperStore;

  constructor(deps: DeveloperKeyVerifierDeps) {
    this.store = deps.store;
  }

  async verify(apiKey: string): Promise<{ developerId: string } | null> {
    if (!apiKey.startsWith(API_KEY_PREFIX)) return null;
    const keyHash = hashApiKey(apiKey);
    const developer = await this.store.findByKeyHash(keyHash);
    if (!developer?.isActive) return null;
    const stored = Buffer.from(developer.keyHash, 'hex');
    const given = Buffer.from(keyHash, 'hex');
    return stored.length === given.length && timingSafeEqual(stored, given) ? { developerId: developer.id } : null;
  }
}
