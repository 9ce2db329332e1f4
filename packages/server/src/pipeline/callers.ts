import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { tokenDigestOf } from '../modules/access-tokens/caller.js';

/** An IPv4 client of a dual-stack socket (`::ffff:192.0.2.1`) as the IPv4 address it is. */
export function plainAddress(address: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}

/**
 * The client an address is: an IPv4 address itself (an IPv4 client of a dual-stack socket,
 * `::ffff:192.0.2.1`, as that address), an IPv6 address its /64 (`2001:db8:1:2::/64`). A host, or
 * one subscriber's line, is given a whole /64 (RFC 6177, RFC 7421): counted per address, one
 * IPv6 client could pick a new address, and so a new share, for every request or connection.
 */
export function clientNetwork(peer: string): string {
  const address = plainAddress(peer);
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...front, ...Array(8 - front.length - back.length).fill('0'), ...back]
    : front;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/** Tokens whose user is remembered, at most (the oldest learnt is forgotten first). */
export const KNOWN_TOKENS = 10_000;

/**
 * Who a request is counted against for the per-client share of the cap on requests in progress
 * (plugins/request-lifecycle.ts), decided on arrival, before its token is looked up in the
 * database (a flood must be turned away before it costs a statement each):
 *
 * - a token that has authenticated in this process before: its user (`user:<id>`), so all the
 *   tokens of one user share one share;
 * - anything else (no token, a malformed one, one never seen yet, an unknown or revoked one): the
 *   client's address (`address:<ip>`; an IPv6 client's /64, {@link clientNetwork}). A made-up token, well-formed or not, is its sender's
 *   address's, never a user's: an attacker cannot take another user's share without that user's
 *   token, nor get a new share per token it invents.
 *
 * What it keeps is the SHA-256 of each token that authenticated (never the token; the digest the
 * caller's lookup reads, taken once per request: `tokenDigestOf`) and its user,
 * at most {@link KNOWN_TOKENS} of them, per process. It decides nothing else: every request still
 * reads its token in the database, which alone authenticates it (a token revoked is `401` on its
 * next request, and forgotten here then; until then a request with it counts against its former
 * user's share, which only its holder can cause).
 */
export class Callers {
  readonly #users = new Map<string, string>();

  /** The key of the share `request` is counted against (see the class). */
  clientOf(request: FastifyRequest): string {
    const digest = this.#users.size > 0 ? tokenDigestOf(request) : null;
    const user = digest !== null ? this.#users.get(digest) : undefined;
    return user === undefined ? `address:${clientNetwork(request.ip)}` : `user:${user}`;
  }

  /** The token of `digest` authenticated as `userId`: its next requests count against that user's share. */
  authenticated(digest: string, userId: string): void {
    if (this.#users.get(digest) === userId) return;
    this.#users.delete(digest);
    this.#users.set(digest, userId);
    if (this.#users.size > KNOWN_TOKENS) this.#users.delete(this.#users.keys().next().value as string);
  }

  /** The token of `digest` did not authenticate (unknown, revoked): it counts against its sender's address. */
  refused(digest: string): void {
    this.#users.delete(digest);
  }
}
