import type { DeveloperStore, StoredDeveloper } from '../src/features/developers/developer-store.js';

/** In-memory DeveloperStore for unit tests; same contract as PostgresDeveloperStore. */
export class FakeDeveloperStore implements DeveloperStore {
  readonly developers = new Map<string, StoredDeveloper>();

  insert(developer: StoredDeveloper): Promise<'inserted' | 'email-taken'> {
    if ([...this.developers.values()].some((existing) => existing.email === developer.email)) return Promise.resolve('email-taken');
    this.developers.set(developer.id, { ...developer });
    return Promise.resolve('inserted');
  }

  findById(id: string): Promise<StoredDeveloper | undefined> {
    return Promise.resolve(this.developers.get(id));
  }

  findByKeyHash(keyHash: string): Promise<StoredDeveloper | undefined> {
    return Promise.resolve([...this.developers.values()].find((developer) => developer.keyHash === keyHash));
  }

  replaceKey(id: string, key: { keyHash: string; apiKeyHint: string }, at: Date): Promise<StoredDeveloper | undefined> {
    const developer = this.developers.get(id);
    if (!developer?.isActive) return Promise.resolve(undefined);
    Object.assign(developer, key, { updatedAt: at });
    return Promise.resolve(developer);
  }

  deactivate(id: string, at: Date): Promise<boolean> {
    const developer = this.developers.get(id);
    if (!developer?.isActive) return Promise.resolve(false);
    Object.assign(developer, { isActive: false, updatedAt: at });
    return Promise.resolve(true);
  }
}
