import { endpoints, type SocialAccount, type SocialAccountId } from '@app/schemas';
import type { APIPromise } from '../../core/api-promise.js';
import type { PagePromise } from '../../core/pagination.js';
import type { Payload, Query } from '../../core/types.js';
import type { ListOptions, RequestOptions } from '../../internal/options.js';
import { APIResource } from '../resource.js';

const e = endpoints.socialAccounts;

export class SocialAccounts extends APIResource {
  list(params?: Query<typeof e.list>, options?: ListOptions): PagePromise<SocialAccount> {
    return this._client.list(e.list, { query: params }, options);
  }

  retrieve(id: SocialAccountId, options?: RequestOptions): APIPromise<SocialAccount> {
    return this._client.request(e.retrieve, { params: { id } }, options);
  }

  /** Connects a YouTube, X or Twitch account by its `https` URL (TikTok and Instagram need the web app). */
  create(body: Payload<typeof e.create>, options?: RequestOptions): APIPromise<SocialAccount> {
    return this._client.request(e.create, { body }, options);
  }

  delete(id: SocialAccountId, options?: RequestOptions): APIPromise<void> {
    return this._client.request(e.delete, { params: { id } }, options);
  }
}
