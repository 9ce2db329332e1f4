import type { Marketplace } from '../client.js';

/** A group of methods; each is one line over the client, built from the endpoint table. */
export abstract class APIResource {
  protected readonly _client: Marketplace;

  constructor(client: Marketplace) {
    this._client = client;
  }
}
