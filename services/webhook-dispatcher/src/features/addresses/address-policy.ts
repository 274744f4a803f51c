import { cidrContains, parseCidr, parseIpAddress, type Cidr, type IpAddress } from './ip-address.js';

/**
 * Ranges that are not globally routable: this host, private networks, shared address space (CGNAT),
 * loopback, link-local (cloud metadata), IETF protocol assignments, benchmarking, multicast, reserved,
 * and their IPv6 counterparts (unspecified, loopback, unique local, link-local, multicast).
 */
export const NOT_GLOBALLY_ROUTABLE = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.168.0.0/16', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4',
  '::/128', '::1/128', 'fc00::/7', 'fe80::/10', 'ff00::/8',
] as const;

/**
 * IPv6 prefixes whose addresses carry an IPv4 address that decides where a packet really goes:
 * IPv4-mapped, IPv4-translated, IPv4-compatible and the NAT64 prefixes (the last 32 bits), and 6to4
 * (bits 16 to 48). `::ffff:127.0.0.1` or `64:ff9b::a9fe:a9fe` reach what their IPv4 part names.
 */
const EMBEDDING_PREFIXES: { cidr: Cidr; offset: number }[] = [
  { cidr: parseCidr('::ffff:0:0/96'), offset: 12 },
  { cidr: parseCidr('::ffff:0:0:0/96'), offset: 12 },
  { cidr: parseCidr('::/96'), offset: 12 },
  { cidr: parseCidr('64:ff9b::/96'), offset: 12 },
  { cidr: parseCidr('64:ff9b:1::/48'), offset: 12 },
  { cidr: parseCidr('2002::/16'), offset: 2 },
];

export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family !== 6) return undefined;
  const prefix = EMBEDDING_PREFIXES.find((candidate) => cidrContains(candidate.cidr, address));
  return prefix && { family: 4, bytes: address.bytes.slice(prefix.offset, prefix.offset + 4) };
}

export interface AddressPolicySettings {
  /** WEBHOOK_ALLOW_CIDRS: permitted although not globally routable (a university's internal subscribers). */
  allowCidrs: string[];
  /** WEBHOOK_DENY_CIDRS: refused although globally routable; wins over the allow list. */
  denyCidrs: string[];
}

/**
 * Which addresses a delivery may connect to. An address is judged together with the IPv4 address it
 * embeds, if any: the deny list refuses, then the allow list permits, then every range that is not
 * globally routable is refused. See docs/webhooks.md.
 */
export class AddressPolicy {
  private readonly refused = NOT_GLOBALLY_ROUTABLE.map(parseCidr);
  private readonly allowed: Cidr[];
  private readonly denied: Cidr[];

  constructor(settings: AddressPolicySettings) {
    this.allowed = settings.allowCidrs.map(parseCidr);
    this.denied = settings.denyCidrs.map(parseCidr);
  }

  /** False for anything that is not an IP address literal. */
  permits(text: string): boolean {
    const address = parseIpAddress(text);
    if (!address) return false;
    const embedded = embeddedIpv4(address);
    const forms = embedded ? [address, embedded] : [address];
    const inAny = (ranges: Cidr[]) => forms.some((form) => ranges.some((range) => cidrContains(range, form)));
    if (inAny(this.denied)) return false;
    if (inAny(this.allowed)) return true;
    return !inAny(this.refused);
  }
}
