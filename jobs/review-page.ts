// The review page of the worker's endpoint (/review/, beside Bull Board's /ui/ and behind the same
// basic auth): the drafts of review: true reports per account, each with its headline figure, to
// date or final, a preview (the report's own report.html, sandboxed), and approve-and-send, hold
// or send-all (docs/reports.md, "Reviewing drafts in the worker"). Sending is `visync report
// send`'s path: each address once. An action is recorded with who and when in delivery.json and
// named in a Redis hash that `visync status` reads (./report-index.ts).
// Forms are refused from another site twice over: hono's csrf middleware (Origin or
// Sec-Fetch-Site must be this site) and a token every form carries (an HMAC of the user under a
// secret of this process). Everything shown is escaped (src/delivery/review/page.ts).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { csrf } from 'hono/csrf';
import type { Logger } from 'pino';
import type { AccountConfig } from '../src/config/schema.js';
import { type ActionResult, approveAndSend, holdReport, sendAll } from '../src/delivery/review/actions.js';
import { outcomeLines, reviewPage } from '../src/delivery/review/page.js';
import { previewHtml } from '../src/delivery/review/preview.js';
import { configuredName, type ReviewRow, type ReviewTarget, reviewRow } from '../src/delivery/review/rows.js';
import { type DeliveryRecord, readDelivery } from '../src/delivery/scheduled/records.js';
import type { DeliveryOptions } from '../src/delivery/scheduled/types.js';
import { parsePeriod } from '../src/history/period.js';
import { errorMessage } from '../src/util/errors.js';
import { redisClaims } from './redis-claims.js';
import { confirmOpenReports, markReviewed, readOpenReports, readReviewedIndex } from './report-index.js';
import type { RunningWorker } from './worker-types.js';

/** An action's lines, given the rows the page lists after it (their client names). */
type Notices = (rows: readonly ReviewRow[]) => string[];

/** Who acts without basic auth (an endpoint on loopback with no VISYNC_UI_USER). */
export const LOCAL_USER = 'local';

/** The page: no script, nothing from elsewhere, forms only to itself, never in a frame. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/**
 * The preview: the report is self-contained (inline styles, data: images); sandboxed, it runs no
 * script and has an origin of its own, whatever it holds.
 */
const PREVIEW_CSP =
  "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; frame-ancestors 'none'";

export interface ReviewOptions {
  /** The basic-auth user, or undefined on loopback without credentials. */
  user: string | undefined;
  readOnly: boolean;
  logger: Logger;
  worker: () => RunningWorker | undefined;
}

/** Adds /review/ to the endpoint's app (after its basic-auth middleware). */
export function addReviewPage(app: Hono, o: ReviewOptions): void {
  const user = o.user ?? LOCAL_USER;
  // Per process: a token from a page of an earlier worker is refused (reload the page).
  const secret = randomBytes(32);
  const token = createHmac('sha256', secret).update(user).digest('hex');
  const tokenOk = (given: unknown) =>
    typeof given === 'string' &&
    given.length === token.length &&
    timingSafeEqual(Buffer.from(given), Buffer.from(token));

  app.use('/review/*', async (c, next) => {
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    await next();
  });
  app.use('/review/*', csrf());

  const page = async (c: Context, w: RunningWorker, notices?: Notices, status: 200 | 400 = 200) => {
    const rows = await listRows(w, o.logger);
    c.header('Content-Security-Policy', PAGE_CSP);
    c.header('X-Frame-Options', 'DENY');
    return c.html(
      reviewPage({ rows, token, readOnly: o.readOnly, user, ...(notices ? { notices: notices(rows) } : {}) }),
      status,
    );
  };
  const running = (c: Context) => {
    const w = o.worker();
    if (!w) c.status(503);
    return w;
  };

  app.get('/review', async (c) => {
    const w = running(c);
    return w ? page(c, w) : c.text('starting: the workers are not running yet\n', 503);
  });

  app.get('/review/preview', async (c) => {
    const w = running(c);
    if (!w) return c.text('starting: the workers are not running yet\n', 503);
    const t = await targetOf(w, {
      account: c.req.query('account'),
      brand: c.req.query('brand'),
      period: c.req.query('period'),
    });
    if ('why' in t) return c.text(`${t.why}\n`, 404);
    const got = await previewHtml(await w.context.storeFor(t.account.name), t.account.name, t);
    if ('why' in got) return c.text(`${got.why}\n`, 404);
    const html = got.html;
    return c.body(new Uint8Array(html), 200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': PREVIEW_CSP,
    });
  });

  const act = (
    run: (w: RunningWorker, form: Record<string, unknown>) => Promise<{ lines: Notices; status?: 400 }>,
  ) => {
    return async (c: Context) => {
      if (o.readOnly)
        return c.text(
          'refused: the worker endpoint is read-only (worker.ui.readOnly is true): nothing is held or sent here; set worker.ui.readOnly: false to act on drafts\n',
          403,
        );
      const form = await c.req.parseBody();
      if (!tokenOk(form.token))
        return c.text('refused: the form is not from this review page (reload it)\n', 403);
      const w = running(c);
      if (!w) return c.text('starting: the workers are not running yet\n', 503);
      const r = await run(w, form);
      return page(c, w, r.lines, r.status ?? 200);
    };
  };

  app.post(
    '/review/hold',
    act(async (w, form) => {
      const t = await targetOf(w, { account: form.account, brand: form.brand, period: form.period });
      if ('why' in t) return { lines: () => [t.why], status: 400 };
      const reason = typeof form.reason === 'string' ? form.reason : undefined;
      const r = await holdReport(await options(w, t.account, o.logger), t, { by: user, reason });
      return { lines: await recorded(w, t.account, r) };
    }),
  );
  app.post(
    '/review/approve',
    act(async (w, form) => {
      const t = await targetOf(w, { account: form.account, brand: form.brand, period: form.period });
      if ('why' in t) return { lines: () => [t.why], status: 400 };
      const r = await approveAndSend(await options(w, t.account, o.logger), t, user);
      return { lines: await recorded(w, t.account, r) };
    }),
  );
  app.post(
    '/review/send-all',
    act(async (w) => {
      const rows = await listRows(w, o.logger);
      const lines: Notices[] = [];
      for (const account of w.context.config.accounts) {
        const listed = rows.filter(
          (r) => r.account === account.name && !r.held && !r.problem && r.state !== 'sent',
        );
        if (!listed.length) continue;
        const r = await sendAll(await options(w, account, o.logger), listed, user);
        lines.push(await recorded(w, account, r));
      }
      return {
        lines: lines.length
          ? (rows) => lines.flatMap((l) => l(rows))
          : () => ['nothing to send: every report listed is held or sent'],
      };
    }),
  );
}

/** The account, workspace and period a form or link names, checked against the config and the period's syntax. */
async function targetOf(
  w: RunningWorker,
  q: { account: unknown; brand: unknown; period: unknown },
): Promise<(ReviewTarget & { account: AccountConfig }) | { why: string }> {
  const account = w.context.config.accounts.find((a) => a.name === q.account);
  if (!account) return { why: "no such account in this worker's config" };
  if (typeof q.brand !== 'string' || !q.brand) return { why: 'no workspace named' };
  if (typeof q.period !== 'string' || !parsePeriod(q.period)) return { why: 'no period, or a malformed one' };
  return { account, brandId: q.brand, period: q.period };
}

/** What the page's actions give the delivery code: the worker's config and store, claims in Redis. */
async function options(w: RunningWorker, account: AccountConfig, logger: Logger): Promise<DeliveryOptions> {
  const ctx = w.context;
  return {
    config: ctx.config,
    account,
    store: await ctx.storeFor(account.name),
    logger: logger.child({ account: account.name, via: 'review page' }),
    claims: redisClaims(ctx.redis, ctx.config.redis.prefix, 'review page'),
  };
}

/**
 * The action's lines; each report it held or tried to send named in the reviewed hash (`visync
 * status`, and the page keeps listing it: a send that failed stays there to be tried again).
 */
async function recorded(w: RunningWorker, account: AccountConfig, r: ActionResult): Promise<Notices> {
  if (!r.ok) return () => [r.why];
  for (const x of r.outcomes)
    if (x.held || x.recipients.length)
      await markReviewed(w.context.redis, w.context.config.redis.prefix, account.name, {
        brand_id: x.brandId,
        period: x.period,
      });
  // The client's name as the page shows it (the report's), else the config's, else the id.
  return (rows) =>
    outcomeLines(account.name, r.outcomes, (brandId) => {
      const row = rows.find((x) => x.account === account.name && x.brandId === brandId);
      return row?.clientName ?? configuredName(w.context.config, account, brandId);
    });
}

/**
 * Per account, the drafts of the workspaces' newest due reports (the report jobs' index, confirmed
 * by delivery.json) and the reports acted on here; ordered by client name.
 */
async function listRows(w: RunningWorker, logger: Logger): Promise<ReviewRow[]> {
  const ctx = w.context;
  const prefix = ctx.config.redis.prefix;
  const out: ReviewRow[] = [];
  for (const account of ctx.config.accounts) {
    const store = await ctx.storeFor(account.name);
    // Each report's delivery.json read once: to confirm the hash's draft, then for its row.
    const reads = new Map<string, Promise<DeliveryRecord | undefined>>();
    const recordOf = (r: { brand_id: string; period: string }) => {
      const k = JSON.stringify([r.brand_id, r.period]);
      const got = reads.get(k) ?? readDelivery(store, account.name, r.brand_id, r.period);
      reads.set(k, got);
      return got;
    };
    const open = await confirmOpenReports(
      store,
      account.name,
      await readOpenReports(ctx.redis, prefix, account.name),
      recordOf,
    );
    const reviewed = await readReviewedIndex(ctx.redis, prefix, account.name);
    const seen = new Set<string>();
    const targets = [...open.filter((r) => r.state === 'draft'), ...reviewed].filter((r) => {
      const k = JSON.stringify([r.brand_id, r.period]);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    const rows: ReviewRow[] = [];
    for (const t of targets) {
      try {
        const row = await reviewRow(
          { config: ctx.config, account, store, logger },
          { brandId: t.brand_id, period: t.period },
          () => recordOf(t),
        );
        if (row) rows.push(row);
      } catch (err) {
        logger.warn(
          { account: account.name, brand_id: t.brand_id, err: errorMessage(err) },
          'review page: report not read',
        );
      }
    }
    rows.sort((a, b) => a.clientName.localeCompare(b.clientName, 'en') || a.brandId.localeCompare(b.brandId));
    out.push(...rows);
  }
  return out;
}
