import { type AccessToken, type AccessTokenId, type AccessTokenWithSecret, endpoints } from '@app/schemas';
import type { ListOptions, RequestOptions } from '../../client.js';
import type { PagePromise } from '../../core/pagination.js';
import type { Payload, Query } from '../../internal/types.js';
import { APIResource } from '../resource.js';

const e = endpoints.accessTokens;

export class AccessTokens extends APIResource {
  /** Metadata only: token values are never shown again. */
  list(params?: Query<typeof e.list>, options?: ListOptions): PagePromise<AccessToken> {
    return this._client.list(e.list, { query: params }, options);
  }

  /** The response's `token` is the only time the secret is shown: store it now. */
  create(body: Payload<typeof e.create>, options?: RequestOptions): Promise<AccessTokenWithSecret> {
    return this._client.request(e.create, { body }, options);
  }

  /** Revokes a token; revoking the client's own token makes its next request a 401. */
  delete(id: AccessTokenId, options?: RequestOptions): Promise<void> {
    return this._client.request(e.delete, { params: { id } }, options);
  }
}
