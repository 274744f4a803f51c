import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rateLimitClientKey } from '../src/features/rate-limit/client-key.js';

describe('the rate budget of a client address', () => {
  it('is the address itself for IPv4', () => {
    expect(rateLimitClientKey('192.0.2.7')).toBe('ip:192.0.2.7');
  });

  it('is the IPv4 address for an IPv4-mapped IPv6 address, in either notation', () => {
    expect(rateLimitClientKey('::ffff:192.0.2.7')).toBe('ip:192.0.2.7');
    expect(rateLimitClientKey('::ffff:c000:207')).toBe('ip:192.0.2.7');
  });

  it('is the /64 for IPv6, whatever notation and interface id', () => {
    expect(rateLimitClientKey('2001:db8:1:2::1')).toBe('ip6:2001:db8:1:2::/64');
    expect(rateLimitClientKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('ip6:2001:db8:1:2::/64');
    expect(rateLimitClientKey('fe80::1%eth0')).toBe('ip6:fe80:0:0:0::/64');
    expect(rateLimitClientKey('::1')).toBe('ip6:0:0:0:0::/64');
  });

  it('tells neighbouring /64s apart', () => {
    expect(rateLimitClientKey('2001:db8:1:2::1')).not.toBe(rateLimitClientKey('2001:db8:1:3::1'));
  });

  it('gives every address of one /64 the same budget (property)', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((value) => value.toString(16));
    fc.assert(
      fc.property(fc.array(group, { minLength: 4, maxLength: 4 }), fc.array(group, { minLength: 4, maxLength: 4 }), fc.array(group, { minLength: 4, maxLength: 4 }), (prefix, first, second) => {
        expect(rateLimitClientKey([...prefix, ...first].join(':'))).toBe(rateLimitClientKey([...prefix, ...second].join(':')));
      }),
    );
  });

  it('has a key for a missing address', () => {
    expect(rateLimitClientKey(undefined)).toBe('ip:unknown');
  });
});
