import type { Limits } from '../../config.js';
import type { Em } from '../../db/database.js';
import { unprocessable } from '../../http/errors.js';

/** The limits that count rows (checked by {@link checkLimit}). */
export type RowLimit = Exclude<keyof Limits, 'briefBytesPerOrganization' | 'uploadBytesPerOrganization'>;

/**
 * What each limit counts (the rows `count` selects for the owner's id), and its lock namespace. An
 * organization's collabs and campaigns are read from their lists' counts (db/pages.ts), exact
 * in the transaction that holds the lock, so the 10 000th create does not count 9 999 rows.
 */
const COUNTED: Record<RowLimit, { count: string; noun: string; lock: number }> = {
  organizations: {
    count: 'select count(*)::int as count from memberships where user_id = ? and is_owner',
    noun: 'organizations',
    lock: 7_401,
  },
  accessTokens: {
    count: 'select count(*)::int as count from access_tokens where user_id = ?',
    noun: 'access tokens',
    lock: 7_402,
  },
  socialAccounts: {
    count: 'select count(*)::int as count from social_accounts where user_id = ?',
    noun: 'social accounts',
    lock: 7_403,
  },
  collabsPerOrganization: {
    count: `select coalesce((select count from row_counts where list = 'collabs' and owner_id = ?), 0) as count`,
    noun: 'collabs',
    lock: 7_404,
  },
  campaignsPerOrganization: {
    count: `select coalesce((select count from row_counts where list = 'campaigns' and owner_id = ?), 0) as count`,
    noun: 'campaigns',
    lock: 7_405,
  },
};

/**
 * Refuses one more row past the limit with `422 {"errors": {"base": [...]}}`. Call it inside the
 * create's transaction: it takes a lock per owner and kind, held to the commit, so concurrent
 * creates are counted one after the other and never overshoot.
 */
export async function checkLimit(tem: Em, kind: RowLimit, ownerId: string, limits: Limits): Promise<void> {
  const { count, noun, lock } = COUNTED[kind];
  await tem.execute('select pg_advisory_xact_lock(?, hashtext(?))', [lock, ownerId]);
  const [row] = await tem.execute<{ count: number }[]>(count, [ownerId]);
  const max = limits[kind];
  if ((row?.count ?? 0) >= max)
    throw unprocessable({
      base: [`has reached the limit of ${max} ${noun}; delete some before creating more`],
    });
}

/**
 * Flushes what `em` holds (a new row of `kind`) in a transaction that first runs `check` (the
 * caller's membership, checked again) and checks the limit, so the count and the insert are one
 * step for concurrent creates.
 */
export async function flushWithinLimit(
  em: Em,
  kind: RowLimit,
  ownerId: string,
  limits: Limits,
  check?: (tem: Em) => Promise<void>,
): Promise<void> {
  // Inside the request's transaction (an Idempotency-Key's), a savepoint of it; `em` keeps that
  // transaction as its context afterwards.
  const outer = em.getTransactionContext();
  await em.begin(outer ? { ctx: outer } : {});
  try {
    await check?.(em);
    await checkLimit(em, kind, ownerId, limits);
    await em.commit();
  } catch (error) {
    await em.rollback();
    throw error;
  } finally {
    if (outer) em.setTransactionContext(outer);
  }
}

/** Lock namespace of {@link checkBriefBytes} (per organization). */
const BRIEF_BYTES_LOCK = 7_406;

const bytesOf = (brief: { brief: string; briefHtml?: string | null }) =>
  Buffer.byteLength(brief.brief) + Buffer.byteLength(brief.briefHtml ?? '');

/**
 * Refuses a brief that would take the organization's briefs past `limits.briefBytesPerOrganization`
 * bytes: the Markdown and the rendered HTML of all its collabs and campaigns, this one's new brief
 * counted instead of its old one (`id`, on update). A brief that does not grow is always taken, so
 * an organization over a lowered limit can still shorten its briefs. `422` on `field` (`brief`,
 * or `base` when the brief is not in the payload: a create's default). Call it inside the write's
 * transaction: it takes a lock per organization, held to the commit, so concurrent writes are
 * counted one after the other and never overshoot.
 */
export async function checkBriefBytes(
  tem: Em,
  organizationId: string,
  change: {
    id: string | undefined;
    old: { brief: string; briefHtml?: string | null } | undefined;
    new: { brief: string; briefHtml: string };
    field: 'brief' | 'base';
  },
  limits: Limits,
): Promise<void> {
  const added = bytesOf(change.new);
  if (change.old && added <= bytesOf(change.old)) return;
  await tem.execute('select pg_advisory_xact_lock(?, hashtext(?))', [BRIEF_BYTES_LOCK, organizationId]);
  const sum = (table: string) =>
    `(select coalesce(sum(octet_length(brief) + coalesce(octet_length(brief_html), 0)), 0)
      from ${table} where organization_id = ? and id <> ?)`;
  const others = change.id ?? '';
  const [row] = await tem.execute<{ bytes: number }[]>(
    `select (${sum('collabs')} + ${sum('campaigns')})::float8 as bytes`,
    [organizationId, others, organizationId, others],
  );
  const max = limits.briefBytesPerOrganization;
  if ((row?.bytes ?? 0) + added > max)
    throw unprocessable({
      [change.field]: [
        `would take the organization's briefs past their limit of ${max} bytes (Markdown and rendered HTML of every collab and campaign); shorten briefs or delete some`,
      ],
    });
}

/** Lock namespace of {@link checkUploadBytes} (per organization). */
const UPLOAD_BYTES_LOCK = 7_407;

/**
 * Refuses an image that would take the organization's images past
 * `limits.uploadBytesPerOrganization` bytes: its logo and the banners of its collabs and
 * campaigns, `removed` (the image this one replaces or purges) taken off. A change that does not
 * grow them is always taken, so an organization over a lowered limit can still replace or remove
 * images. `422` on `field`. Images stored before their sizes were kept count as 0. Call it inside
 * the write's transaction: it takes a lock per organization, held to the commit, so concurrent
 * writes are counted one after the other and never overshoot.
 */
export async function checkUploadBytes(
  tem: Em,
  organizationId: string,
  change: { added: number; removed: number; field: string },
  limits: Limits,
): Promise<void> {
  if (change.added <= change.removed) return;
  await tem.execute('select pg_advisory_xact_lock(?, hashtext(?))', [UPLOAD_BYTES_LOCK, organizationId]);
  const banners = (table: string) =>
    `(select coalesce(sum(banner_image_bytes), 0) from ${table} where organization_id = ?)`;
  const [row] = await tem.execute<{ bytes: number }[]>(
    `select (${banners('collabs')} + ${banners('campaigns')}
      + coalesce((select logo_bytes from organizations where id = ?), 0))::float8 as bytes`,
    [organizationId, organizationId, organizationId],
  );
  const max = limits.uploadBytesPerOrganization;
  if ((row?.bytes ?? 0) - change.removed + change.added > max)
    throw unprocessable({
      [change.field]: [
        `would take the organization's images past their limit of ${max} bytes (its logo and every banner); delete or replace some, or upload a smaller image`,
      ],
    });
}

/** {@link checkUploadBytes} of a new row's image (a create's logo or banner), when it has one. */
export async function checkNewImage(
  tem: Em,
  organizationId: string,
  image: { bytes: number } | null,
  field: string,
  limits: Limits,
): Promise<void> {
  if (image) await checkUploadBytes(tem, organizationId, { added: image.bytes, removed: 0, field }, limits);
}
