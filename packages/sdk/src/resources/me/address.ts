import { type Address as AddressResource, endpoints } from '@app/schemas';
import type { RequestOptions } from '../../client.js';
import { NotFoundError } from '../../core/error.js';
import type { Payload } from '../../internal/types.js';
import { APIResource } from '../resource.js';

const e = endpoints.address;

/** The shipping address for product samples; a user has at most one. */
export class Address extends APIResource {
  /** Resolves `null` when the user has no address (the server's empty 404). */
  async retrieve(options?: RequestOptions): Promise<AddressResource | null> {
    try {
      return await this._client.request(e.retrieve, {}, options);
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  /** Creates the address, or merges the given fields into the existing one. */
  update(body: Payload<typeof e.update>, options?: RequestOptions): Promise<AddressResource> {
    return this._client.request(e.update, { body }, options);
  }

  delete(options?: RequestOptions): Promise<void> {
    return this._client.request(e.delete, {}, options);
  }
}
