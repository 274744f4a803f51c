import { createKnex, type Knex } from '@timetable/db';
import { DeliveryStore } from '../../src/features/delivery/delivery-store.js';
import { SecretCipher } from '../../src/features/secrets/secret-cipher.js';
import { WEBHOOKS_SCHEMA } from '../../src/index.js';
import type { Harness } from './webhook-harness.js';

export interface SentStatement {
  sql: string;
  values: readonly unknown[];
}

export interface SingleConnectionStore {
  store: DeliveryStore;
  knex: Knex;
  /** Every statement sent on the connection so far, as node-postgres received it (`$1`, `$2`, ...). */
  sent: SentStatement[];
  close(): Promise<void>;
}

interface RecordedConnection {
  query(sql: string, values?: readonly unknown[], callback?: unknown): unknown;
}

/** The harness's database, for a store of the test's own on it. */
export function connectionStringOf(h: Harness): string {
  return (h.knex.client.config as { connection: { connectionString: string } }).connection.connectionString;
}

/**
 * A DeliveryStore on the harness's database whose pool holds one connection, which records what is sent on
 * it: the statements the store runs in the order the server gets them, whether through knex or on the
 * connection itself (the claim's transaction), and a statement that leaves the connection in a bad state
 * shows in the next one.
 */
export async function singleConnectionStore(h: Harness): Promise<SingleConnectionStore> {
  const knex = createKnex({ connectionString: connectionStringOf(h), schema: WEBHOOKS_SCHEMA, poolMax: 1 });
  const connection = (await knex.client.acquireConnection()) as RecordedConnection;
  const sent: SentStatement[] = [];
  const query = connection.query.bind(connection);
  connection.query = (sql, values, callback) => {
    // knex passes a query config, the store a text and its values.
    const config = typeof sql === 'string' ? { text: sql, values: Array.isArray(values) ? values : [] } : (sql as { text: string; values?: unknown[] });
    sent.push({ sql: config.text, values: config.values ?? [] });
    return query(sql, values, callback);
  };
  await knex.client.releaseConnection(connection);
  return { store: new DeliveryStore({ knex, cipher: new SecretCipher(h.secretsKey) }), knex, sent, close: () => knex.destroy() };
}
