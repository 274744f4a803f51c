import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { field, readConfig } from '@timetable/config';
import { ConfigError } from '@timetable/config/testing';

const schema = z.object({
  PORT: field.port(3000),
  TIME_ZONE: field.timeZone(),
  DELIVERY_RETRY_DELAYS_SECONDS: field.secondsList('60,300,900'),
});

describe('configuration from the environment', () => {
  it('applies defaults for unset and empty variables', () => {
    expect(readConfig(schema, { PORT: '' })).toMatchObject({ PORT: 3000, DELIVERY_RETRY_DELAYS_SECONDS: [60, 300, 900] });
  });

  it('stops with a message naming every invalid variable', () => {
    const read = () => readConfig(schema, { PORT: 'eighty', TIME_ZONE: 'Mars/Olympus' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/PORT/);
    expect(read).toThrow(/TIME_ZONE/);
  });
});
