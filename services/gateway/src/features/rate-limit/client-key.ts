import { isIPv4, isIPv6 } from 'node:net';

/**
 * The rate budget's owner for a client address. An IPv4 address is one client. An IPv6 client is its /64:
 * a single host commonly holds a whole /64 and can rotate through it at will, so per-address budgets
 * would not limit it (and would fill the limiter with one entry per rotation). IPv4-mapped IPv6 addresses
 * (`::ffff:192.0.2.1`, how a dual-stack socket reports IPv4 peers) count as the IPv4 address.
 */
export function rateLimitClientKey(address: string | undefined): string {
  if (!address) return 'ip:unknown';
  if (isIPv4(address)) return `ip:${address}`;
  if (!isIPv6(address)) return `ip:${address}`;
  const groups = expandIPv6(address.split('%')[0] ?? address);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return `ip:${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  return `ip6:${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, with `::` and a trailing dotted IPv4 part resolved. */
function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? [] : Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
}
