import type { LookupFunction } from 'node:net';
import { Agent, fetch } from 'undici';
import {
  BlockedAddressError,
  checkPort,
  type ResolvedAddress,
  resolvePublicAddresses,
} from './public-address.js';

export interface GuardedFetchOptions {
  /** Lets loopback and private addresses through (`MARKETPLACE_PREFILL_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
  /** Budget of the whole fetch: every hop and the body. */
  timeoutMs: number;
  /** Bytes of body kept at most; the rest is not read. */
  maxBytes: number;
  maxRedirects: number;
  accept: string;
  /** Budget of each DNS resolution, within the whole budget (default {@link DNS_TIMEOUT_MS}). */
  dnsTimeoutMs?: number;
  /** Resolves and checks a host; injectable so that tests can make a loopback host look public. */
  resolve?: (hostname: string, allowPrivate: boolean) => Promise<ResolvedAddress[]>;
  /**
   * Counts each chunk of body kept, before it is kept (the server's budget of bodies in memory);
   * what it throws ends the fetch.
   */
  hold?: (bytes: number) => void;
}

export interface FetchedBody {
  /** The address of the last hop, after redirects. */
  url: URL;
  contentType: string;
  data: Buffer;
  /** False when the body was longer than `maxBytes` (then `data` holds the first `maxBytes`). */
  complete: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Milliseconds a DNS resolution may take before the fetch gives up. */
export const DNS_TIMEOUT_MS = 1_000;

/** Rejects when the signal aborts: DNS lookups do not take a signal of their own. */
function racingAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function readCapped(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
  hold: ((bytes: number) => void) | undefined,
) {
  const chunks: Buffer[] = [];
  let size = 0;
  if (body) {
    for await (const chunk of body) {
      hold?.(chunk.byteLength);
      chunks.push(Buffer.from(chunk));
      size += chunk.byteLength;
      // Leaving the loop cancels the stream: the rest is never downloaded.
      if (size > maxBytes) return { data: Buffer.concat(chunks).subarray(0, maxBytes), complete: false };
    }
  }
  return { data: Buffer.concat(chunks), complete: true };
}

/**
 * GET of a URL given by a caller, made safe for a server to follow: http(s) only, every hop's
 * host resolved and checked before anything is sent to it (redirects included, at most
 * `maxRedirects`), the connection made to the checked addresses only, one time budget, and a
 * cap on the bytes read. Throws on any failure and on any status other than 2xx.
 */
export async function guardedFetch(input: string | URL, options: GuardedFetchOptions): Promise<FetchedBody> {
  const resolve = options.resolve ?? resolvePublicAddresses;
  const signal = AbortSignal.timeout(options.timeoutMs);
  // Addresses checked for each host name; the agent connects to these and never asks DNS again.
  const pinned = new Map<string, ResolvedAddress[]>();
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    const addresses = pinned.get(hostname);
    const first = addresses?.[0];
    if (!addresses || !first) {
      callback(new BlockedAddressError(`${hostname} was not checked`), '', 0);
    } else if (lookupOptions.all) {
      (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
    } else {
      callback(null, first.address, first.family);
    }
  };
  const agent = new Agent({ connect: { lookup }, connections: 1, pipelining: 0 });
  try {
    let url = new URL(input);
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`${url.protocol} is not allowed`);
      checkPort(url, options.allowPrivate);
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      // IP literals never reach `lookup`, so every host is checked here, before connecting.
      const dnsTimeoutMs = options.dnsTimeoutMs ?? DNS_TIMEOUT_MS;
      const dnsSignal = AbortSignal.any([signal, AbortSignal.timeout(dnsTimeoutMs)]);
      const resolved = racingAbort(resolve(host, options.allowPrivate), dnsSignal).catch((error: unknown) => {
        if (!signal.aborted && dnsSignal.aborted)
          throw new Error(`resolving ${host} took longer than ${dnsTimeoutMs} ms`);
        throw error;
      });
      pinned.set(host, await resolved);
      const response = await fetch(url, {
        dispatcher: agent,
        redirect: 'manual',
        signal,
        headers: { accept: options.accept, 'user-agent': 'MarketplaceReferenceServer/1.0 (collab prefill)' },
      });
      if (REDIRECTS.has(response.status)) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (!location) throw new Error('redirect without a location');
        if (hop >= options.maxRedirects) throw new Error('too many redirects');
        url = new URL(location, url);
        continue;
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel();
        throw new Error(`status ${response.status}`);
      }
      const body = await readCapped(response.body, options.maxBytes, options.hold);
      return { url, contentType: response.headers.get('content-type') ?? '', ...body };
    }
  } finally {
    await agent.destroy();
  }
}
