import pg from 'pg';

/** One query on its own connection: a test polling across a database restart needs no pool to heal. */
export async function sql<T>(connectionString: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}
