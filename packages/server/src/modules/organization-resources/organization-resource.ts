import type { ServerResponse } from 'node:http';
import type { FieldErrors } from '@app/schemas';
import type { EntityData, EntityName, FilterQuery } from '@mikro-orm/core';
import type { Config } from '../../config.js';
import type { Em } from '../../db/database.js';
import type { DeclaredEntity, ReadResult } from '../../db/reads.js';
import { forbidden, notFound, throwIfInvalid, unprocessable } from '../../http/errors.js';
import { iso, resourceUrl } from '../../http/present.js';
import { type Caller, takingKeyItself } from '../../http/route.js';
import { type BriefOwner, briefHtmlOf, renderBrief } from '../briefs/brief.js';
import { assignDefined, type FieldMap } from '../common/assign.js';
import {
  checkBriefBytes,
  checkNewImage,
  checkUploadBytes,
  flushWithinLimit,
  type RowLimit,
} from '../common/limits.js';
import { requestEnded } from '../common/request-ended.js';
import { checkCallerStillAllowed } from '../members/members.service.js';
import { checkImage, createWithAttachment, updateWithAttachment } from '../uploads/attachment.js';
import { type UploadedFile, type UploadedFiles, type UploadStore, uploadUrl } from '../uploads/uploads.js';
import { findInOrganization, organizationReads } from './find.js';

/*
 * A resource that lives in an organization and is written as a draft with a Markdown brief and a
 * banner image (collabs, campaigns). What their writes have in common is kept here once, and each
 * module describes its resource in a few lines (`organizationResource({...})`): its entity, the
 * payload fields stored as they are, what a new draft starts as, what an update must also check,
 * what keeps a draft from being deleted, and its transitions. This module turns the description
 * into the handlers of the resource's routes, in the same order of steps for every resource:
 *
 * - create: the banner checked, the draft built, the brief rendered, the row inserted with the
 *   banner stored alongside and counted against the organization's limit;
 * - update: the brief rendered before the row is locked (it may take its whole budget), the row
 *   locked, the banner and the resource's own rules checked, every broken field listed at once;
 * - delete: only a draft with no dependent rows, the row locked against a new one;
 * - transitions: one conditional UPDATE each, so two concurrent calls cannot both succeed.
 *
 * It also answers whether an organization still has any (`existIn`) and gives the test helpers
 * their two writes (`addDependent`, `force`).
 */

/** Columns every such resource has, the ones the shared steps read and write. */
interface ResourceRow {
  id: string;
  organization: { id: string };
  brief: string;
  briefHtml?: string | null;
  bannerImage?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The fields every such resource ends with as presented (`pageFields` of the contract): its
 * times, its address under `collection`, its banner's.
 */
export const presentPageFields = (row: ResourceRow, baseUrl: string, collection: string) => ({
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
  url: resourceUrl(baseUrl, `/organizations/${row.organization.id}/${collection}/${row.id}`),
  banner_image_url: row.bannerImage ? uploadUrl(baseUrl, row.bannerImage) : null,
});

/** Payload fields every such resource has (create and update). */
interface ResourcePayload {
  brief?: string;
  purge_banner_image?: '0' | '1';
}

/** What a create starts from, before the payload's own fields are assigned over it. */
export interface Draft<T> {
  /** The brief, as the payload gives it or else from elsewhere (defaults, a prefilled page). */
  brief: string;
  /** Column values of a new draft; the payload's fields, when given, replace them. */
  row: Partial<EntityData<T>>;
  /** A banner that does not come from the request (a prefilled page's image). */
  banner?: UploadedFile | undefined;
}

/** A transition of the lifecycle column (`state`, `status`) from one value to the next. */
export interface Transition<T, State extends string> {
  from: State;
  to: State;
  /** Columns the move sets as well, given its time. */
  set?: (now: Date) => EntityData<T>;
  /** A further condition of the move, and the errors when the row meets all but it. */
  requires?: { where: FilterQuery<T>; errors: FieldErrors };
}

/** The route context the handlers read: a subset of http/route.ts's `Context`. */
export interface ResourceRequest<Params> {
  em: Em;
  config: Config;
  uploads: UploadStore;
  params: Params;
  /** Who calls (its membership is checked again inside a write's transaction). */
  caller: Caller;
  /** Its response: once closed, the client has gone away (common/request-ended.ts). */
  reply: { raw: ServerResponse };
  /** The request: its share of the budget of bodies in memory (plugins/request-lifecycle.ts). */
  request: { holdBodyBytes(bytes: number): void };
  /** Takes the request's `Idempotency-Key` (http/route.ts, `takingKeyItself`). */
  takeIdempotencyKey(): Promise<void>;
}
export type InOrganization = { organization_id: string };

/** What a resource's `draft` is given of the create's request. */
export interface DraftRequest<Query> {
  config: Config;
  query: Query;
  /** Counts bytes the draft downloads against the budget of bodies in memory (website-prefill.ts). */
  holdBodyBytes: (bytes: number) => void;
}
export type OneInOrganization = { organization_id: string; id: string };

/** The caller whose membership a write checks again in its transaction (members.service.ts). */
const stillAllowed = (request: ResourceRequest<InOrganization>) => ({
  userId: request.caller.user.id,
  signal: requestEnded(request.reply),
});

/** Whose brief a write renders: the caller, in the organization of the URL. */
const ownerOf = (request: ResourceRequest<InOrganization>): BriefOwner => ({
  userId: request.caller.user.id,
  organizationId: request.params.organization_id,
  signal: requestEnded(request.reply),
});

export function organizationResource<
  T extends ResourceRow,
  Input extends ResourcePayload,
  Query,
  Summary,
  Lifecycle extends keyof T & string,
  Action extends string,
  Dependent extends object,
>(resource: {
  entity: EntityName<T> & DeclaredEntity;
  /** The summary as listed; shown, it has the brief too. */
  present: (row: T, baseUrl: string) => Summary;
  /** Properties the list does not show, so does not read (large text columns). */
  listOmits?: ReadonlyArray<keyof T & string>;
  /** The organization's limit a create counts against. */
  limit: RowLimit;
  /** Payload fields stored as they are: payload name → entity property. */
  fields: FieldMap<Input, T>;
  /** A new draft, from the payload (which may be left out) and the request's query. */
  draft: (input: Input | undefined, request: DraftRequest<Query>) => Draft<T> | Promise<Draft<T>>;
  /** The resource's own checks of an update, on the locked row, adding to `errors`. */
  checkUpdate?: (found: T, input: Input, errors: FieldErrors) => void;
  /** The lifecycle column; only a row in `draft` may be deleted. */
  lifecycle: Lifecycle;
  /** Rows that keep a draft from being deleted (they point to it by `parent`), and the message. */
  dependents: { entity: EntityName<Dependent>; parent: keyof Dependent & string; message: string };
  transitions: Record<Action, Transition<T, T[Lifecycle] & string>>;
}) {
  const { entity, fields, lifecycle } = resource;
  const present = {
    summary: resource.present,
    show: (row: T, baseUrl: string) => ({ ...resource.present(row, baseUrl), brief: briefHtmlOf(row) }),
  };
  const reads = organizationReads(entity, present, resource.listOmits);
  // Filters and data on a generic entity: MikroORM cannot check them against `T`, the callers' types do.
  const where = (filter: object) => filter as FilterQuery<T>;
  const data = (values: object) => values as EntityData<T>;

  async function create(
    request: ResourceRequest<InOrganization> & {
      query: Query;
      body: Input | undefined;
      files: UploadedFiles;
    },
  ): Promise<Summary & { brief: string }> {
    const { em, config, uploads, params, query, body, files } = request;
    const errors: FieldErrors = {};
    checkImage('banner_image', files.banner_image, errors);
    throwIfInvalid(errors);

    // The slow steps first (the website's page, the brief's render), then the key: its transaction
    // holds the request's writes, and on PGlite the whole database (takingKeyItself).
    const draft = await resource.draft(body, {
      config,
      query,
      holdBodyBytes: (bytes) => request.request.holdBodyBytes(bytes),
    });
    const briefHtml = await renderBrief(draft.brief, config.briefRenderBudgetMs, ownerOf(request));
    await request.takeIdempotencyKey();
    return createWithAttachment(uploads, files.banner_image ?? draft.banner, async (banner) => {
      const row = em.create(entity, {
        ...draft.row,
        organization: params.organization_id,
        brief: draft.brief,
        briefHtml,
        bannerImage: banner?.name ?? null,
        bannerImageBytes: banner?.bytes ?? null,
      } as never);
      if (body) assignDefined(em, row, body, fields);
      await flushWithinLimit(em, resource.limit, params.organization_id, config.limits, async (tem) => {
        await checkCallerStillAllowed(tem, params.organization_id, stillAllowed(request), 'admin');
        await checkBriefBytes(
          tem,
          params.organization_id,
          {
            id: undefined,
            old: undefined,
            new: { brief: draft.brief, briefHtml },
            field: body?.brief !== undefined ? 'brief' : 'base',
          },
          config.limits,
        );
        await checkNewImage(tem, params.organization_id, banner, 'banner_image', config.limits);
      });
      return present.show(row, config.baseUrl);
    });
  }

  async function update(
    request: ResourceRequest<OneInOrganization> & { body: Input; files: UploadedFiles },
  ): Promise<Summary & { brief: string }> {
    const { em, config, uploads, params, body, files } = request;
    const briefHtml =
      body.brief !== undefined
        ? await renderBrief(body.brief, config.briefRenderBudgetMs, ownerOf(request))
        : undefined;
    const change = { file: files.banner_image, purge: body.purge_banner_image };
    const columns = { name: 'bannerImage', bytes: 'bannerImageBytes' } as const;
    const checkBytes = (tem: Em, bytes: { added: number; removed: number }) =>
      checkUploadBytes(tem, params.organization_id, { ...bytes, field: 'banner_image' }, config.limits);
    const row = await updateWithAttachment(
      em,
      uploads,
      columns,
      change,
      async (tem) => {
        await checkCallerStillAllowed(tem, params.organization_id, stillAllowed(request), 'admin');
        const found = await findInOrganization(tem, entity, params.organization_id, params.id, {
          lock: true,
        });
        const errors: FieldErrors = {};
        checkImage('banner_image', files.banner_image, errors);
        resource.checkUpdate?.(found, body, errors);
        throwIfInvalid(errors);
        if (body.brief !== undefined && briefHtml !== undefined)
          await checkBriefBytes(
            tem,
            params.organization_id,
            { id: found.id, old: found, new: { brief: body.brief, briefHtml }, field: 'brief' },
            config.limits,
          );

        assignDefined(tem, found, body, fields);
        if (briefHtml !== undefined) found.briefHtml = briefHtml;
        return found;
      },
      checkBytes,
    );
    return present.show(row, config.baseUrl);
  }

  async function remove(request: ResourceRequest<OneInOrganization>): Promise<void> {
    const { em, uploads, params } = request;
    const { entity: dependent, parent, message } = resource.dependents;
    const banner = await em.transactional(async (tem) => {
      await checkCallerStillAllowed(tem, params.organization_id, stillAllowed(request), 'admin');
      const found = await findInOrganization(tem, entity, params.organization_id, params.id, { lock: true });
      if (found[lifecycle] !== 'draft') throw forbidden();
      if ((await tem.count(dependent, { [parent]: params.id } as never)) > 0)
        throw unprocessable({ base: [message] });
      tem.remove(found);
      return found.bannerImage;
    });
    await uploads.remove(banner);
  }

  async function transition(
    { em, params }: ResourceRequest<OneInOrganization>,
    action: Action,
  ): Promise<void> {
    const { from, to, set, requires } = resource.transitions[action];
    const now = new Date();
    const inState = { id: params.id, organization: params.organization_id, [lifecycle]: from };
    const changed = await em.nativeUpdate(
      entity,
      where({ ...inState, ...(requires?.where as object | undefined) }),
      data({ ...(set?.(now) as object | undefined), [lifecycle]: to, updatedAt: now }),
    );
    if (changed > 0) return;

    const found = await findInOrganization(em, entity, params.organization_id, params.id);
    if (found[lifecycle] === from && requires) throw unprocessable(requires.errors);
    throw unprocessable({ [lifecycle]: [`must be ${from} to ${action}`] });
  }

  const transitionHandlers = Object.fromEntries(
    Object.keys(resource.transitions).map((action) => [
      action,
      (request: ResourceRequest<OneInOrganization>) => transition(request, action as Action),
    ]),
  ) as Record<Action, (request: ResourceRequest<OneInOrganization>) => Promise<void>>;

  return {
    /** The reads that travel with the caller lookup (`defineRoutes`' last argument). */
    reads: { list: reads.list, retrieve: reads.show },
    /** A handler for each endpoint of the resource's group of the endpoint table. */
    handlers: {
      list: ({ read, config }: { read: ReadResult; config: Config }) =>
        reads.presentList(read, config.baseUrl),
      retrieve: ({ read, config }: { read: ReadResult; config: Config }) =>
        reads.presentShow(read, config.baseUrl),
      create: takingKeyItself(create),
      update,
      delete: remove,
      ...transitionHandlers,
    },
    /** Whether an organization still has any (it blocks the organization's deletion). */
    async existIn(em: Em, organizationId: string): Promise<boolean> {
      return (await em.count(entity, where({ organization: organizationId }))) > 0;
    },
    /**
     * Test helpers: adds a dependent row with the counters the row keeps of them, incremented in
     * the database (exact under concurrency); `404` when the row is not in the organization.
     */
    async addDependent<D extends object>(
      em: Em,
      organizationId: string,
      id: string,
      counters: EntityData<T>,
      create: (tem: Em) => D,
    ): Promise<D> {
      return em.transactional(async (tem) => {
        const changed = await tem.nativeUpdate(entity, where({ id, organization: organizationId }), counters);
        if (changed === 0) throw notFound();
        const added = create(tem);
        await tem.flush();
        return added;
      });
    },
    /** Test helpers: changes the locked row as `force` does, then shows it. */
    async force(em: Em, config: Config, organizationId: string, id: string, force: (found: T) => void) {
      const row = await em.transactional(async (tem) => {
        const found = await findInOrganization(tem, entity, organizationId, id, { lock: true });
        force(found);
        return found;
      });
      return present.show(row, config.baseUrl);
    },
  };
}
