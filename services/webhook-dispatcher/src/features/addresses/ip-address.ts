import { isIP } from 'node:net';

/** An IP address as its network-order bytes: 4 for IPv4, 16 for IPv6. */
export interface IpAddress {
  family: 4 | 6;
  bytes: Uint8Array;
}

export interface Cidr {
  network: IpAddress;
  prefixLength: number;
}

/**
 * Parses the textual forms `net.isIP` accepts (dotted IPv4; IPv6 with `::`, an embedded dotted quad or a
 * zone id, with or without brackets). Returns undefined for anything else, host names included.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  const address = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return { family, bytes: Uint8Array.from(address.split('.').map(Number)) };
  if (family === 6) return { family, bytes: ipv6Bytes(address) };
  return undefined;
}

/** `10.0.0.0/8`, `fc00::/7`; throws with a message an operator can act on. */
export function parseCidr(text: string): Cidr {
  const [address = '', bits = '', ...rest] = text.trim().split('/');
  const network = parseIpAddress(address);
  const prefixLength = Number(bits);
  const maximum = network?.family === 4 ? 32 : 128;
  if (!network || rest.length > 0 || !/^\d{1,3}$/.test(bits) || prefixLength > maximum) {
    throw new Error(`${text} is not a CIDR range such as 10.0.0.0/8 or fd00::/8`);
  }
  return { network, prefixLength };
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.network.family !== address.family) return false;
  const whole = Math.floor(cidr.prefixLength / 8);
  for (let index = 0; index < whole; index += 1) {
    if (cidr.network.bytes[index] !== address.bytes[index]) return false;
  }
  const remaining = cidr.prefixLength % 8;
  if (remaining === 0) return true;
  const mask = (0xff << (8 - remaining)) & 0xff;
  return ((cidr.network.bytes[whole] ?? 0) & mask) === ((address.bytes[whole] ?? 0) & mask);
}

export function formatIpAddress(address: IpAddress): string {
  if (address.family === 4) return address.bytes.join('.');
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push((((address.bytes[index] ?? 0) << 8) | (address.bytes[index + 1] ?? 0)).toString(16));
  return groups.join(':');
}

function ipv6Bytes(address: string): Uint8Array {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => '0');
  const groups = [...headGroups, ...zeros, ...tailGroups].map((group) => Number.parseInt(group, 16));
  const bytes = new Uint8Array(16);
  groups.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}
