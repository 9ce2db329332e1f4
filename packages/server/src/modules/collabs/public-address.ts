import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * The website prefill fetches URLs chosen by the caller, so it must not become a way into the
 * server's own network (SSRF). Only public unicast addresses may be contacted: loopback, private
 * (RFC 1918, fc00::/7), link-local (169.254/16 with the cloud metadata service, fe80::/10),
 * unspecified, CGNAT (100.64/10), multicast, broadcast, reserved and documentation ranges, and the
 * IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are refused.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A destination the prefill must not contact. */
export class BlockedAddressError extends Error {}

/** Whether `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  // `process` turns an IPv4-mapped IPv6 address (::ffff:a.b.c.d) into the IPv4 address it carries.
  const ip = ipaddr.process(address);
  // IPv4-compatible ::a.b.c.d (deprecated) is "unicast" to ipaddr.js; nothing public lives in ::/96.
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return ip.range() === 'unicast';
}

/**
 * The addresses to connect to for `hostname` (a name, or an IP literal without brackets),
 * refused unless every one is public (or `allowPrivate`). The caller connects to exactly these
 * addresses, so a second DNS answer (rebinding) cannot slip a private address in.
 */
export async function resolvePublicAddresses(
  hostname: string,
  allowPrivate: boolean,
): Promise<ResolvedAddress[]> {
  const family = isIP(hostname);
  const addresses: ResolvedAddress[] =
    family !== 0
      ? [{ address: hostname, family: family as 4 | 6 }]
      : (await lookup(hostname, { all: true, order: 'verbatim' })).map((a) => ({
          address: a.address,
          family: a.family as 4 | 6,
        }));
  if (addresses.length === 0) throw new BlockedAddressError(`${hostname} has no address`);
  if (!allowPrivate) {
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked)
      throw new BlockedAddressError(`${hostname} resolves to ${blocked.address}, which is not public`);
  }
  return addresses;
}

/** Ports a public page is fetched from: the web's own (`''` is the scheme's default). */
const WEB_PORTS: ReadonlySet<string> = new Set(['', '80', '443']);

/** Refuses a URL on a port other than 80 or 443, unless private addresses are allowed (local pages). */
export function checkPort(url: URL, allowPrivate: boolean): void {
  if (!allowPrivate && !WEB_PORTS.has(url.port))
    throw new BlockedAddressError(`port ${url.port} is not allowed (80 and 443 only)`);
}
