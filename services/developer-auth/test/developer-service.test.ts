import { describe, expect, it } from 'vitest';
import { ConflictError, UnauthorizedError } from '@timetable/http';
import { captureLogger } from '@timetable/testing';
import { DeveloperKeyVerifier } from '../src/features/api-keys/developer-key-verifier.js';
import { DeveloperService } from '../src/features/developers/developer-service.js';
import { FakeDeveloperStore } from './fake-developer-store.js';

const NOW = new Date('2025-05-01T12:00:00.000Z');

function setup() {
  const store = new FakeDeveloperStore();
  const { logger, lines } = captureLogger();
  const service = new DeveloperService({ store, webhookCounter: { countFor: () => Promise.resolve(3) }, logger, now: () => NOW });
  return { store, lines, service, verifier: new DeveloperKeyVerifier({ store }) };
}

describe('registration', () => {
  it('stores the hash and the hint, never the key', async () => {
    const { store, service } = setup();
    const { developer, apiKey } = await service.register({ email: 'ada@example.edu', name: 'Ada' });
    const stored = store.developers.get(developer.id);
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect(stored).toMatchObject({ email: 'ada@example.edu', name: 'Ada', apiKeyHint: apiKey.slice(-4), isActive: true, createdAt: NOW });
    expect(developer).not.toHaveProperty('keyHash');
  });

  it('refuses an email that is already registered, case-sensitively', async () => {
    const { service } = setup();
    await service.register({ email: 'ada@example.edu' });
    await expect(service.register({ email: 'ada@example.edu' })).rejects.toThrow(new ConflictError('Email already registered'));
    await expect(service.register({ email: 'Ada@example.edu' })).resolves.toBeDefined();
  });
});

describe('key verification', () => {
  it('resolves the current key of an active developer only', async () => {
    const { service, verifier } = setup();
    const { developer, apiKey } = await service.register({ email: 'ada@example.edu' });
    expect(await verifier.verify(apiKey)).toEqual({ developerId: developer.id });
    // Another last character (a random key ends in `x` about once in sixty runs).
    expect(await verifier.verify(`${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}`)).toBeNull();
    expect(await verifier.verify(apiKey.replace('spk_', 'xyz_'))).toBeNull();

    const { apiKey: rotated } = await service.regenerateKey(developer.id);
    expect(await verifier.verify(apiKey)).toBeNull();
    expect(await verifier.verify(rotated)).toEqual({ developerId: developer.id });

    await service.deactivate(developer.id);
    expect(await verifier.verify(rotated)).toBeNull();
  });
});

describe('a deactivated account', () => {
  it('can neither read itself, rotate its key nor be deactivated again', async () => {
    const { service } = setup();
    const { developer } = await service.register({ email: 'ada@example.edu' });
    await service.deactivate(developer.id);
    const revoked = new UnauthorizedError('Invalid or revoked API key');
    await expect(service.account(developer.id)).rejects.toThrow(revoked);
    await expect(service.regenerateKey(developer.id)).rejects.toThrow(revoked);
    await expect(service.deactivate(developer.id)).rejects.toThrow(revoked);
  });
});

describe('audit lines', () => {
  it('record registration, rotation with the new hint, and deactivation without any key', async () => {
    const { service, lines } = setup();
    const { developer, apiKey } = await service.register({ email: 'ada@example.edu' });
    const { apiKey: rotated, apiKeyHint } = await service.regenerateKey(developer.id);
    await service.deactivate(developer.id);
    const audit = lines().filter((line) => String(line.event).startsWith('audit.'));
    expect(audit.map(({ event, developerId, apiKeyHint: hint }) => ({ event, developerId, hint }))).toEqual([
      { event: 'audit.timetable.developer.registered', developerId: developer.id, hint: undefined },
      { event: 'audit.timetable.developer.key_rotated', developerId: developer.id, hint: apiKeyHint },
      { event: 'audit.timetable.developer.deactivated', developerId: developer.id, hint: undefined },
    ]);
    const logged = JSON.stringify(lines());
    expect(logged).not.toContain(apiKey);
    expect(logged).not.toContain(rotated);
  });
});
