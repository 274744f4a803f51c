import type { Redis } from 'ioredis';
import type { Cache } from './cache.js';

/** Distributed mode's cache, shared by every replica; versions live in Redis so a bump reaches all. */
export class RedisCache implements Cache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'timetable:cache:',
  ) {}

  get(key: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.prefix + key);
  }

  async set(key: string, value: Buffer, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.prefix + key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  async version(namespace: string): Promise<number> {
    return Number((await this.redis.get(`${this.prefix}version:${namespace}`)) ?? 0);
  }

  bump(namespace: string): Promise<number> {
    return this.redis.incr(`${this.prefix}version:${namespace}`);
  }

  /** The composition root owns the shared connection and closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
