import type { Knex } from '@timetable/db';
import type { DeveloperStore, StoredDeveloper } from './developer-store.js';

interface DeveloperRow {
  id: string;
  email: string;
  name: string | null;
  key_hash: string;
  api_key_hint: string;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface PostgresDeveloperStoreDeps {
  /** On the `developer_auth` schema. */
  knex: Knex;
}

const TABLE = 'developers';
const UNIQUE_VIOLATION = '23505';

/** The accounts in PostgreSQL; the unit tests use an in-memory DeveloperStore instead. */
export class PostgresDeveloperStore implements DeveloperStore {
  private readonly knex: Knex;

  constructor(deps: PostgresDeveloperStoreDeps) {
    this.knex = deps.knex;
  }

  async insert(developer: StoredDeveloper): Promise<'inserted' | 'email-taken'> {
    try {
      await this.knex(TABLE).insert(toRow(developer));
      return 'inserted';
    } catch (error) {
      if (isUniqueViolation(error, 'developers_email_unique')) return 'email-taken';
      throw error;
    }
  }

  async findById(id: string): Promise<StoredDeveloper | undefined> {
    const row = await this.knex(TABLE).first<DeveloperRow | undefined>('*').where('id', id);
    return row && toDeveloper(row);
  }

  async findByKeyHash(keyHash: string): Promise<StoredDeveloper | undefined> {
    const row = await this.knex(TABLE).first<DeveloperRow | undefined>('*').where('key_hash', keyHash);
    return row && toDeveloper(row);
  }

  async replaceKey(id: string, key: { keyHash: string; apiKeyHint: string }, at: Date): Promise<StoredDeveloper | undefined> {
    const [row] = await this.knex(TABLE)
      .where({ id, is_active: true })
      .update({ key_hash: key.keyHash, api_key_hint: key.apiKeyHint, updated_at: at })
      .returning<DeveloperRow[]>('*');
    return row && toDeveloper(row);
  }

  async deactivate(id: string, at: Date): Promise<boolean> {
    const updated = await this.knex(TABLE).where({ id, is_active: true }).update({ is_active: false, updated_at: at });
    return updated > 0;
  }
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const { code, constraint: violated } = error as { code?: string; constraint?: string };
  return code === UNIQUE_VIOLATION && violated === constraint;
}

function toRow(developer: StoredDeveloper): DeveloperRow {
  return {
    id: developer.id,
    email: developer.email,
    name: developer.name,
    key_hash: developer.keyHash,
    api_key_hint: developer.apiKeyHint,
    is_active: developer.isActive,
    created_at: developer.createdAt,
    updated_at: developer.updatedAt,
  };
}

function toDeveloper(row: DeveloperRow): StoredDeveloper {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    keyHash: row.key_hash,
    apiKeyHint: row.api_key_hint,
    isActive: row.is_active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
