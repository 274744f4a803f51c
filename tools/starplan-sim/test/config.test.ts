import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('has defaults', () => {
    expect(loadConfig({})).toEqual({ port: 4010, host: '127.0.0.1', seed: 1, scale: 1, basePath: '/splan', validators: false, logLevel: 'info' });
  });

  it('reads SIM_PORT, SIM_SEED, SIM_SCALE and SIM_TODAY', () => {
    expect(loadConfig({ SIM_PORT: '0', SIM_SEED: '99', SIM_SCALE: '10', SIM_TODAY: '2024-03-20' })).toMatchObject({
      port: 0,
      seed: 99,
      scale: 10,
      today: '2024-03-20',
    });
  });

  it('reads SIM_VALIDATORS as 0 or 1', () => {
    expect(loadConfig({ SIM_VALIDATORS: '1' }).validators).toBe(true);
    expect(() => loadConfig({ SIM_VALIDATORS: 'yes' })).toThrow(/SIM_VALIDATORS/);
  });

  it('names the invalid variable', () => {
    expect(() => loadConfig({ SIM_PORT: 'eighty' })).toThrow(/SIM_PORT/);
    expect(() => loadConfig({ SIM_SCALE: '-1' })).toThrow(/SIM_SCALE/);
  });
});
