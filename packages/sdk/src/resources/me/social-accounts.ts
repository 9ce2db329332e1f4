import { endpoints, type SocialAccount, type SocialAccountId } from '@app/schemas';
import type { APIPromise } from '../../core/api-promise.js';
import type { PagePromise } from '../../core/pagination.js';
import type { Payload, Query } from '../../core/types.js';
import type { ListOptions, RequestOptions } from '../../internal/options.js';
import { APIResource } from '../resource.js';

const e = endpoints.socialAccounts;

/** Query of `client.me.socialAccounts.list()`: `{ page }`. */
export type SocialAccountListParams = Query<typeof endpoints.socialAccounts.list>;
/** Body of `client.me.socialAccounts.create()`: `{ platform_id, account_url }`. */
export type SocialAccountCreateParams = Payload<typeof endpoints.socialAccounts.create>;

export class SocialAccounts extends APIResource {
  /** The caller's connected accounts, oldest first. */
  list(params?: SocialAccountListParams, options?: ListOptions): PagePromise<SocialAccount> {
    return this._client.list(e.list, { query: params }, options);
  }

  /** One of the caller's accounts (another user's is a 404), with its stats once synced. */
  retrieve(id: SocialAccountId, options?: RequestOptions): APIPromise<SocialAccount> {
    return this._client.request(e.retrieve, { params: { id } }, options);
  }

  /** Connects a YouTube, X or Twitch account by its `https` URL (TikTok and Instagram need the web app). */
  create(body: SocialAccountCreateParams, options?: RequestOptions): APIPromise<SocialAccount> {
    return this._client.request(e.create, { body }, options);
  }

  /** Disconnects the account. */
  delete(id: SocialAccountId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { id } }, options);
  }
}
