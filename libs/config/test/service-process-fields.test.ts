import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readConfig, serviceProcessFields } from '../src/index.js';
import { ConfigError } from '../src/testing/index.js';

const schema = z.object(serviceProcessFields(3003));
const required = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/timetable', KAFKA_BROKERS: 'a:9092, b:9092' };

describe('serviceProcessFields', () => {
  it('defaults the port, prefix and consumer retry budget, and splits the brokers', () => {
    expect(readConfig(schema, required)).toMatchObject({
      PORT: 3003,
      KAFKA_BROKERS: ['a:9092', 'b:9092'],
      KAFKA_TOPIC_PREFIX: '',
      CONSUMER_RETRY_BUDGET_SECONDS: 300,
      LOG_LEVEL: 'info',
    });
  });

  it('requires a database and at least one broker, naming each variable', () => {
    let error: unknown;
    try {
      readConfig(schema, { KAFKA_BROKERS: ' , ' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/DATABASE_URL/);
    expect((error as ConfigError).message).toMatch(/KAFKA_BROKERS/);
  });

  it('rejects a retry budget that is not a positive integer', () => {
    expect(() => readConfig(schema, { ...required, CONSUMER_RETRY_BUDGET_SECONDS: '-5' })).toThrow(/CONSUMER_RETRY_BUDGET_SECONDS/);
  });
});
