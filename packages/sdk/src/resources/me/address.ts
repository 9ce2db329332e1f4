import { type Address as AddressResource, endpoints } from '@app/schemas';
import { APIPromise } from '../../core/api-promise.js';
import { NotFoundError } from '../../core/error.js';
import { madeResponse } from '../../core/made-response.js';
import type { Payload } from '../../core/types.js';
import type { RequestOptions } from '../../internal/options.js';
import { APIResource } from '../resource.js';

const e = endpoints.address;

/** Body of `client.me.address.update()`: the fields to set, merged into the stored address. */
export type AddressUpdateParams = Payload<typeof endpoints.address.update>;

/** The shipping address for product samples; a user has at most one. */
export class Address extends APIResource {
  /** Resolves `null` when the user has no address (the server's empty 404). */
  retrieve(options?: RequestOptions): APIPromise<AddressResource | null> {
    const answer = this._client
      .request(e.retrieve, {}, options)
      .withResponse()
      .catch((error: unknown) => {
        // Only the server's empty 404 means "no address": a JSON one is a wrong URL or route.
        if (!(error instanceof NotFoundError) || (error.body !== undefined && error.body !== '')) throw error;
        return {
          data: null,
          response: madeResponse(null, { status: 404, headers: error.headers }, error.request?.url ?? ''),
        };
      });
    return new APIPromise(answer);
  }

  /** Creates the address, or merges the given fields into the existing one. */
  update(body: AddressUpdateParams, options?: RequestOptions): APIPromise<AddressResource> {
    return this._client.request(e.update, { body }, options);
  }

  /** Deletes the address; a 404 when there is none (also when repeated). */
  delete(options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, {}, options);
  }
}
