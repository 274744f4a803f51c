import { randomUUID } from 'node:crypto';
import type { RegisterDeveloperBody, WebhookCounter } from '@timetable/contracts';
import { ConflictError, UnauthorizedError } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { issueApiKey } from '../api-keys/api-key.js';
import type { Developer, DeveloperStore, StoredDeveloper } from './developer-store.js';

export interface DeveloperServiceDeps {
  store: DeveloperStore;
  webhookCounter: WebhookCounter;
  logger: Logger;
  now: () => Date;
}

export interface IssuedAccount {
  developer: Developer;
  apiKey: string;
}

/** Account rules: registration, key rotation, deactivation. Audit lines carry ids and hints, never a key. */
export class DeveloperService {
  constructor(private readonly deps: DeveloperServiceDeps) {}

  async register(input: RegisterDeveloperBody): Promise<IssuedAccount> {
    const { apiKey, keyHash, apiKeyHint } = issueApiKey();
    const now = this.deps.now();
    const developer: StoredDeveloper = {
      id: randomUUID(),
      email: input.email,
      name: input.name ?? null,
      keyHash,
      apiKeyHint,
      isActive: true,
      createdAt: now,
      updatedAt: now,
    };
    if ((await this.deps.store.insert(developer)) === 'email-taken') throw new ConflictError('Email already registered');
    this.audit('audit.timetable.developer.registered', developer.id);
    return { developer: withoutHash(developer), apiKey };
  }

  async account(developerId: string): Promise<{ developer: Developer; webhooks: number }> {
    const developer = await this.activeDeveloper(developerId);
    return { developer, webhooks: await this.deps.webhookCounter.countFor(developerId) };
  }

  async regenerateKey(developerId: string): Promise<{ apiKey: string; apiKeyHint: string }> {
    const { apiKey, keyHash, apiKeyHint } = issueApiKey();
    const replaced = await this.deps.store.replaceKey(developerId, { keyHash, apiKeyHint }, this.deps.now());
    if (!replaced) throw revoked();
    this.audit('audit.timetable.developer.key_rotated', developerId, { apiKeyHint });
    return { apiKey, apiKeyHint };
  }

  async deactivate(developerId: string): Promise<void> {
    if (!(await this.deps.store.deactivate(developerId, this.deps.now()))) throw revoked();
    this.audit('audit.timetable.developer.deactivated', developerId);
  }

  /** The gateway already rejected bad keys; this covers a key revoked between its check and this request. */
  private async activeDeveloper(developerId: string): Promise<Developer> {
    const developer = await this.deps.store.findById(developerId);
    if (!developer?.isActive) throw revoked();
    return withoutHash(developer);
  }

  private audit(event: string, developerId: string, extra: Record<string, unknown> = {}): void {
    this.deps.logger.info({ event, developerId, ...extra }, event);
  }
}

function revoked(): UnauthorizedError {
  return new UnauthorizedError('Invalid or revoked API key');
}

function withoutHash({ keyHash: _keyHash, ...developer }: StoredDeveloper): Developer {
  return developer;
}
