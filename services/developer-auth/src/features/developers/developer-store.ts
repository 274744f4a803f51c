export interface Developer {
  id: string;
  email: string;
  name: string | null;
  apiKeyHint: string;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The stored account: the key's hash is the only trace of the key. */
export interface StoredDeveloper extends Developer {
  keyHash: string;
}

/**
 * The accounts as the service and the key verifier see them: an interface because it has two implementations,
 * PostgresDeveloperStore and the unit tests' in-memory one.
 */
export interface DeveloperStore {
  /** 'email-taken' when the (case-sensitive) email already has an account. */
  insert(developer: StoredDeveloper): Promise<'inserted' | 'email-taken'>;
  findById(id: string): Promise<StoredDeveloper | undefined>;
  findByKeyHash(keyHash: string): Promise<StoredDeveloper | undefined>;
  /** Replaces the key of an active account; undefined when there is none. */
  replaceKey(id: string, key: { keyHash: string; apiKeyHint: string }, at: Date): Promise<StoredDeveloper | undefined>;
  /** False when there was no active account to deactivate. */
  deactivate(id: string, at: Date): Promise<boolean>;
}
