import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, isIPv4 } from 'node:net';

export class DeniedAddressError extends Error {
  readonly code = 'EDENIEDADDRESS';

  constructor(host: string, address: string) {
    super(`Refusing to send to ${host}: address ${address} is in a denied range (WEBHOOK_DENY_CIDRS)`);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * WEBHOOK_DENY_CIDRS, checked on the address a connection really uses: the DNS lookup hook runs at
 * connect time, so a name that resolves somewhere harmless when saved cannot later reach the metadata range.
 */
export class AddressGuard {
  private readonly denied = new BlockList();

  constructor(cidrs: string[]) {
    for (const cidr of cidrs) {
      const [address = '', bits = ''] = cidr.split('/');
      this.denied.addSubnet(address, Number(bits), isIPv4(address) ? 'ipv4' : 'ipv6');
    }
  }

  isDenied(address: string): boolean {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const plain = mapped ?? address;
    const family = isIP(plain);
    if (family === 0) return false;
    return this.denied.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** Node skips the lookup hook for IP literals, so those are checked here before connecting. */
  checkLiteral(hostname: string): void {
    const address = hostname.replace(/^\[|\]$/g, '');
    if (isIP(address) !== 0 && this.isDenied(address)) throw new DeniedAddressError(hostname, address);
  }

  /** A `net.connect` lookup that fails for names resolving into a denied range. */
  readonly lookup = (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const denied = addresses.find((entry) => this.isDenied(entry.address));
      if (denied) {
        callback(new DeniedAddressError(hostname, denied.address), []);
        return;
      }
      if ((options as { all?: boolean }).all) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0];
      callback(null, first?.address ?? '', first?.family);
    });
  };
}
