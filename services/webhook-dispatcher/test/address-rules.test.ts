import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AddressPolicy, NOT_GLOBALLY_ROUTABLE } from '../src/features/addresses/address-policy.js';
import { cidrContains, formatIpAddress, parseCidr, parseIpAddress } from '../src/features/addresses/ip-address.js';
import { ADDRESS_NOT_ALLOWED, AddressGuard, AddressNotAllowedError } from '../src/features/delivery/address-guard.js';

const secureDefault = new AddressPolicy({ allowCidrs: [], denyCidrs: [] });

/** The first, a middle and the last address of each refused IPv4 range. */
const IPV4_REFUSED: [string, string[]][] = [
  ['0.0.0.0/8', ['0.0.0.0', '0.1.2.3', '0.255.255.255']],
  ['10.0.0.0/8', ['10.0.0.0', '10.20.30.40', '10.255.255.255']],
  ['100.64.0.0/10', ['100.64.0.0', '100.100.100.200', '100.127.255.255']],
  ['127.0.0.0/8', ['127.0.0.0', '127.0.0.1', '127.255.255.255']],
  ['169.254.0.0/16', ['169.254.0.0', '169.254.169.254', '169.254.255.255']],
  ['172.16.0.0/12', ['172.16.0.0', '172.20.1.1', '172.31.255.255']],
  ['192.0.0.0/24', ['192.0.0.0', '192.0.0.170', '192.0.0.255']],
  ['192.168.0.0/16', ['192.168.0.0', '192.168.1.1', '192.168.255.255']],
  ['198.18.0.0/15', ['198.18.0.0', '198.19.0.1', '198.19.255.255']],
  ['224.0.0.0/4', ['224.0.0.0', '239.255.255.250', '239.255.255.255']],
  ['240.0.0.0/4', ['240.0.0.0', '250.1.2.3', '255.255.255.255']],
];

const IPV6_REFUSED: [string, string[]][] = [
  ['::/128', ['::', '0:0:0:0:0:0:0:0']],
  ['::1/128', ['::1', '0:0:0:0:0:0:0:1', '[::1]']],
  ['fc00::/7', ['fc00::', 'fd00:ec2::254', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
  ['fe80::/10', ['fe80::', 'fe80::1%eth0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
  ['ff00::/8', ['ff00::', 'ff02::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
];

/** Just outside each range, and ordinary public addresses: all must stay deliverable. */
const PUBLIC = [
  '1.1.1.1', '8.8.8.8', '11.0.0.0', '9.255.255.255', '100.63.255.255', '100.128.0.0', '126.255.255.255', '128.0.0.0', '169.253.255.255',
  '169.255.0.0', '172.15.255.255', '172.32.0.0', '192.0.1.0', '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0',
  '223.255.255.255', '2606:4700:4700::1111', '2001:4860:4860::8888', 'fbff:ffff::1', 'fec0::1', '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8', '2002:0808:0808::1',
];

function bytesOf(ipv4: string): number[] {
  return ipv4.split('.').map(Number);
}

/** Every IPv6 form that carries an IPv4 address the packet really goes to. */
function embeddingForms(ipv4: string): string[] {
  const [a = 0, b = 0, c = 0, d = 0] = bytesOf(ipv4);
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
  return [
    `::ffff:${ipv4}`, `::ffff:${hex(a, b)}:${hex(c, d)}`, `[::ffff:${ipv4}]`, `0:0:0:0:0:ffff:${ipv4}`,
    `::ffff:0:${ipv4}`, `64:ff9b::${ipv4}`, `64:ff9b::${hex(a, b)}:${hex(c, d)}`, `64:ff9b:1::${ipv4}`,
    `2002:${hex(a, b)}:${hex(c, d)}::1`,
  ];
}

/** The numeric host spellings a URL parser turns into the dotted form: decimal, hex, octal, short. */
function literalSpellings(ipv4: string): string[] {
  const bytes = bytesOf(ipv4);
  const value = bytes.reduce((sum, byte) => sum * 256 + byte, 0);
  return [
    String(value),
    `0x${value.toString(16)}`,
    bytes.map((byte) => `0${byte.toString(8)}`).join('.'),
    bytes.map((byte) => `0x${byte.toString(16)}`).join('.'),
    `${bytes[0]}.${(bytes[1] ?? 0) * 65536 + (bytes[2] ?? 0) * 256 + (bytes[3] ?? 0)}`,
  ];
}

describe('address rules: every address that is not globally routable is refused by default', () => {
  it('lists exactly the ranges of the documented rule', () => {
    expect(NOT_GLOBALLY_ROUTABLE).toEqual([...IPV4_REFUSED, ...IPV6_REFUSED].map(([range]) => range));
  });

  describe.each(IPV4_REFUSED)('%s', (range, samples) => {
    it.each(samples)('refuses %s as IPv4, IPv4-mapped, IPv4-translated, NAT64 and 6to4', (address) => {
      expect(cidrContains(parseCidr(range), parseIpAddress(address)!)).toBe(true);
      for (const form of [address, ...embeddingForms(address)]) expect(secureDefault.permits(form), form).toBe(false);
    });

    it.each(samples)('refuses %s written as a decimal, hex, octal or short URL host', (address) => {
      const guard = new AddressGuard({ policy: secureDefault });
      for (const spelling of literalSpellings(address)) {
        const hostname = new URL(`http://${spelling}:8080/hook`).hostname;
        expect(hostname, spelling).toBe(address);
        expect(() => guard.checkLiteral(hostname), spelling).toThrow(AddressNotAllowedError);
      }
      for (const form of embeddingForms(address)) {
        const hostname = new URL(`http://[${form.replace(/^\[|\]$/g, '')}]/`).hostname;
        expect(() => guard.checkLiteral(hostname), form).toThrow(AddressNotAllowedError);
      }
    });
  });

  describe.each(IPV6_REFUSED)('%s', (range, samples) => {
    it.each(samples)('refuses %s', (address) => {
      expect(cidrContains(parseCidr(range), parseIpAddress(address)!)).toBe(true);
      expect(secureDefault.permits(address)).toBe(false);
    });
  });

  it.each(PUBLIC)('permits the public address %s', (address) => {
    expect(secureDefault.permits(address)).toBe(true);
  });

  it('refuses what is not an IP address at all', () => {
    expect(secureDefault.permits('localhost')).toBe(false);
    expect(secureDefault.permits('1.2.3')).toBe(false);
  });
});

describe('WEBHOOK_ALLOW_CIDRS and WEBHOOK_DENY_CIDRS', () => {
  const university = new AddressPolicy({ allowCidrs: ['10.20.0.0/16', 'fd12:3456::/32'], denyCidrs: ['10.20.99.0/24', '203.0.113.0/24'] });

  it('permits the listed internal ranges in every form, and nothing next to them', () => {
    for (const form of ['10.20.3.4', '::ffff:10.20.3.4', '64:ff9b::10.20.3.4', 'fd12:3456::9']) expect(university.permits(form), form).toBe(true);
    for (const form of ['10.21.0.1', '10.19.255.255', 'fd12:3457::1', '127.0.0.1']) expect(university.permits(form), form).toBe(false);
  });

  it('refuses denied ranges even inside an allowed one, and public ranges it lists', () => {
    expect(university.permits('10.20.99.5')).toBe(false);
    expect(university.permits('::ffff:10.20.99.5')).toBe(false);
    expect(university.permits('203.0.113.7')).toBe(false);
    expect(university.permits('198.51.100.7')).toBe(true);
  });
});

describe('names resolving to refused addresses', () => {
  const resolving = (table: Record<string, string[]>) => async (hostname: string): Promise<LookupAddress[]> =>
    (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it.each([...IPV4_REFUSED, ...IPV6_REFUSED].flatMap(([, samples]) => samples.filter((sample) => !sample.startsWith('['))))(
    'refuses a name resolving to %s, with the documented message and without the address',
    async (address) => {
      const guard = new AddressGuard({ policy: secureDefault, resolver: resolving({ 'hooks.example.edu': [address.replace(/%.*$/, '')] }) });
      const refusal = guard.permittedAddresses('hooks.example.edu');
      await expect(refusal).rejects.toThrow(`${ADDRESS_NOT_ALLOWED}: hooks.example.edu is not a public address`);
      await expect(refusal).rejects.not.toThrow(address);
    },
  );

  it('offers only the permitted addresses of a name that resolves to public and private ones', async () => {
    const guard = new AddressGuard({
      policy: secureDefault,
      resolver: resolving({ 'mixed.example.edu': ['10.0.0.5', '93.184.215.14', '::1', '2606:2800:21f:cb07::1'] }),
    });
    const permitted = await guard.permittedAddresses('mixed.example.edu');
    expect(permitted.map((entry) => entry.address)).toEqual(['93.184.215.14', '2606:2800:21f:cb07::1']);
  });

  it('permits an internal name (no top-level domain) whose address is in WEBHOOK_ALLOW_CIDRS', async () => {
    const policy = new AddressPolicy({ allowCidrs: ['10.20.0.0/16'], denyCidrs: [] });
    const guard = new AddressGuard({ policy, resolver: resolving({ portal: ['10.20.0.8'] }) });
    expect(await guard.permittedAddresses('portal')).toEqual([{ address: '10.20.0.8', family: 4 }]);
  });

  it('answers the connect-time lookup hook in both of its shapes', async () => {
    const guard = new AddressGuard({
      policy: secureDefault,
      resolver: resolving({ 'public.example': ['93.184.215.14'], 'metadata.example': ['169.254.169.254'] }),
    });
    const lookup = (hostname: string, options: object) =>
      new Promise<unknown[]>((resolve) => guard.lookup(hostname, options, (error, address, family) => resolve([error, address, family])));
    expect(await lookup('public.example', {})).toEqual([null, '93.184.215.14', 4]);
    expect(await lookup('public.example', { all: true })).toEqual([null, [{ address: '93.184.215.14', family: 4 }], undefined]);
    const [error] = await lookup('metadata.example', {});
    expect(error).toBeInstanceOf(AddressNotAllowedError);
  });
});

describe('IP address parsing', () => {
  it('reads and writes IPv6 with compression and an embedded dotted quad', () => {
    expect(formatIpAddress(parseIpAddress('::ffff:127.0.0.1')!)).toBe('0:0:0:0:0:ffff:7f00:1');
    expect(formatIpAddress(parseIpAddress('fe80::1%eth0')!)).toBe('fe80:0:0:0:0:0:0:1');
    expect(parseIpAddress('example.edu')).toBeUndefined();
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '::/129', 'fd00::/x', '10.0.0.0/8/8', 'intranet/8'])('rejects the CIDR %s', (text) => {
    expect(() => parseCidr(text)).toThrow('is not a CIDR range');
  });
});
