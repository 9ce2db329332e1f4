import { type AccessToken, type AccessTokenId, type AccessTokenWithSecret, endpoints } from '@app/schemas';
import type { APIPromise } from '../../core/api-promise.js';
import type { PagePromise } from '../../core/pagination.js';
import type { Payload, Query } from '../../core/types.js';
import type { ListOptions, RequestOptions } from '../../internal/options.js';
import { APIResource } from '../resource.js';

const e = endpoints.accessTokens;

/** Query of `client.me.accessTokens.list()`: `{ page }`. */
export type AccessTokenListParams = Query<typeof endpoints.accessTokens.list>;
/** Body of `client.me.accessTokens.create()`: `{ description, permission }`. */
export type AccessTokenCreateParams = Payload<typeof endpoints.accessTokens.create>;

export class AccessTokens extends APIResource {
  /** Metadata only: token values are never shown again. */
  list(params?: AccessTokenListParams, options?: ListOptions): PagePromise<AccessToken> {
    return this._client.list(e.list, { query: params }, options);
  }

  /** The response's `token` is the only time the secret is shown: store it now. */
  create(body: AccessTokenCreateParams, options?: RequestOptions): APIPromise<AccessTokenWithSecret> {
    return this._client.request(e.create, { body }, options);
  }

  /** Revokes a token; revoking the client's own token makes its next request a 401. */
  delete(id: AccessTokenId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { id } }, options);
  }
}
