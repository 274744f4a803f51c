import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { AddressPolicy } from '../addresses/address-policy.js';

/** The start of every `errorMessage` of an attempt refused by the address rules (docs/webhooks.md). */
export const ADDRESS_NOT_ALLOWED = 'Address not allowed';

/**
 * The message names the host from the subscriber's own URL but never the address it resolved to: the
 * deliveries page must not become a way to read the internal DNS.
 */
export class AddressNotAllowedError extends Error {
  readonly code = 'EADDRESSNOTALLOWED';

  constructor(hostname: string) {
    super(`${ADDRESS_NOT_ALLOWED}: ${hostname} is not a public address`);
  }
}

export type Resolver = (hostname: string, options: object) => Promise<LookupAddress[]>;
type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** URL hosts whose literal check is remembered (each is a few bytes). */
const LITERAL_CACHE_SIZE = 10_000;

const systemResolver: Resolver = (hostname, options) => dnsLookup(hostname, { ...options, all: true });

export interface AddressGuardDeps {
  policy: AddressPolicy;
  /** Name resolution; default the system's (`dns.lookup`). Tests resolve names to the addresses they need. */
  resolver?: Resolver;
}

/**
 * Applies the address policy to the address a connection really uses: the lookup hook runs at connect
 * time, so a name that resolved to a public address when the webhook was saved cannot later reach an
 * internal one. Of several addresses only the permitted ones are offered to the connection.
 */
export class AddressGuard {
  private readonly policy: AddressPolicy;
  private readonly resolve: Resolver;
  private readonly literals = new Map<string, boolean>();

  constructor(deps: AddressGuardDeps) {
    this.policy = deps.policy;
    this.resolve = deps.resolver ?? systemResolver;
  }

  /** Node skips the lookup hook for IP literals, so a URL's literal host is checked before connecting. */
  checkLiteral(hostname: string): void {
    let permitted = this.literals.get(hostname);
    if (permitted === undefined) {
      const address = hostname.replace(/^\[|\]$/g, '');
      permitted = isIP(address) === 0 || this.policy.permits(address);
      // The verdict on a literal never changes (the policy is fixed); names are judged at connect time.
      if (this.literals.size >= LITERAL_CACHE_SIZE) this.literals.clear();
      this.literals.set(hostname, permitted);
    }
    if (!permitted) throw new AddressNotAllowedError(hostname);
  }

  /** The permitted addresses of a name; rejects when there is none. */
  async permittedAddresses(hostname: string, options: object = {}): Promise<LookupAddress[]> {
    const addresses = await this.resolve(hostname, options);
    const permitted = addresses.filter((entry) => this.policy.permits(entry.address));
    if (permitted.length === 0) throw new AddressNotAllowedError(hostname);
    return permitted;
  }

  /** A `net.connect` lookup that only ever yields permitted addresses. */
  readonly lookup = (hostname: string, options: object, callback: LookupCallback): void => {
    this.permittedAddresses(hostname, options).then(
      (permitted) => {
        if ((options as { all?: boolean }).all) {
          callback(null, permitted);
          return;
        }
        const [first] = permitted;
        callback(null, first?.address ?? '', first?.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
