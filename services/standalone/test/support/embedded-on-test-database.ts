/** The whole embedded system in the test's process, on a fresh test database, for tests that look inside it. */
import { loadStandaloneConfig, startEmbeddedSystem, type RunningSystem } from '@timetable/standalone';
import { captureLogger, createTestDatabase, type TestDatabase } from '@timetable/testing';

export interface EmbeddedOnTestDatabase {
  system: RunningSystem;
  database: TestDatabase;
  /** Stops the system, then drops its database. */
  stop(): Promise<void>;
}

/** Started with PORT 0 and LOG_LEVEL fatal; `env` adds or overrides the rest of its configuration. */
export async function startEmbeddedOnTestDatabase(env: Record<string, string> = {}): Promise<EmbeddedOnTestDatabase> {
  const database = await createTestDatabase();
  try {
    const config = loadStandaloneConfig({ PORT: '0', DATABASE_URL: database.connectionString, LOG_LEVEL: 'fatal', ...env });
    const system = await startEmbeddedSystem(config, captureLogger('fatal').logger);
    return {
      system,
      database,
      stop: async () => {
        await system.stop();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
