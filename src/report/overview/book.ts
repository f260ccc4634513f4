// The whole book (docs/reports.md, "The whole book"): one overview of every configured account's
// clients, made from the rows each account's own overview showed (./rows.ts), so every row has the
// same columns, the same headline rule and the same order; the account named on each row, each link
// rewritten to lead from `reports/agency/period=P/` to that client's report, and each account
// without rows of the period named with why. Pure.
import { compareText } from '../../history/figures.js';
import type { Period } from '../../history/period.js';
import { byHeadline, type OverviewReport, type OverviewRow } from './rows.js';

/** One account's part: what its overview of the period showed (src/report/make.ts). */
export interface AccountBook {
  account: string;
  period: Period;
  previous: Period;
  toDate?: { through: string } | undefined;
  rows: readonly OverviewRow[];
  reports: readonly OverviewReport[];
}

/**
 * Why an account has no rows: unreadable (its store could not be read), no_runs (no complete run
 * at all), not_covered (no complete run covers the period, or none holds a workspace), no_pages
 * (its reports are JSON only: no page to link), not_made (none of its reports was written: each
 * failed), other_period (its reports are of another period: the default period ends on each
 * account's newest run), no_report (the store holds no report of the period for any of its
 * workspaces yet: the scheduled delivery makes the book before the account's own night).
 */
export type MissingReason =
  | 'unreadable'
  | 'no_runs'
  | 'not_covered'
  | 'no_pages'
  | 'not_made'
  | 'other_period'
  | 'no_report';

/** What tells why an account has no book part (src/report/make.ts AccountReports). */
export interface AccountMade {
  known: readonly string[];
  workspaces: readonly string[];
  made: readonly unknown[];
}

export interface MissingAccount {
  account: string;
  reason: MissingReason;
  /** other_period: the period its reports are of. */
  period?: Period;
}

export interface Book {
  period: Period;
  previous: Period;
  toDate?: { through: string } | undefined;
  rows: OverviewRow[];
  reports: OverviewReport[];
  missing: MissingAccount[];
}

/**
 * What one account gave: its book part, or what tells why it has none (what `visync report` made,
 * or the reason itself when read from the store: ./book-store.ts).
 */
export type AccountOutcome =
  | { account: string; book: AccountBook }
  | { account: string; book?: undefined; made: AccountMade | undefined }
  | { account: string; book?: undefined; reason: MissingReason };

/** Why an account without a book part has none (undefined `made`: its store could not be read). */
function missingReason(made: AccountMade | undefined): MissingReason {
  if (made === undefined) return 'unreadable';
  if (made.known.length === 0) return 'no_runs';
  if (made.workspaces.length === 0) return 'not_covered';
  // Written, yet no overview: its reports are JSON only (src/report/make.ts writes pages' overviews).
  return made.made.length > 0 ? 'no_pages' : 'not_made';
}

/**
 * From an account overview's folder (`reports/account=A/period=P/`) to the book's
 * (`reports/agency/period=P/`): the link climbs one folder more and names the account's folder.
 */
export function bookHref(account: string, href: string): string {
  return `../../${encodeURIComponent(`account=${account}`)}/${href.replace(/^\.\.\//, '')}`;
}

/**
 * The book of the accounts, in config order; null when none has rows. Its period is the one most
 * accounts' reports are of (a tie: the later one), so a default period that ends on one account's
 * newest run does not hide the others.
 */
export function wholeBook(outcomes: readonly AccountOutcome[]): Book | null {
  const parts = outcomes.flatMap((o) => (o.book ? [o.book] : []));
  const counts = new Map<string, { n: number; part: AccountBook }>();
  for (const p of parts) {
    const c = counts.get(p.period.label);
    counts.set(p.period.label, { n: (c?.n ?? 0) + 1, part: c?.part ?? p });
  }
  const chosen = [...counts.values()].sort(
    (a, b) =>
      b.n - a.n ||
      compareText(b.part.period.to, a.part.period.to) ||
      compareText(b.part.period.label, a.part.period.label),
  )[0]?.part;
  if (!chosen) return null;
  const label = chosen.period.label;
  const within = parts.filter((p) => p.period.label === label);
  const rows = within
    .flatMap((p) =>
      p.rows.map(
        (r): OverviewRow => ({ ...r, account: p.account, href: r.href && bookHref(p.account, r.href) }),
      ),
    )
    .sort(
      (a, b) =>
        byHeadline(a, b) ||
        compareText(a.account ?? '', b.account ?? '') ||
        compareText(a.brandId, b.brandId),
    );
  const missing = outcomes.flatMap((o): MissingAccount[] => {
    if (!o.book) return [{ account: o.account, reason: 'reason' in o ? o.reason : missingReason(o.made) }];
    if (o.book.period.label !== label)
      return [{ account: o.account, reason: 'other_period', period: o.book.period }];
    return [];
  });
  // To date when any account's reports are; through the newest day any of them has.
  const through = within
    .map((p) => p.toDate?.through)
    .filter((t): t is string => t !== undefined)
    .sort(compareText)
    .at(-1);
  return {
    period: chosen.period,
    previous: chosen.previous,
    toDate: through === undefined ? undefined : { through },
    rows,
    reports: within.flatMap((p) => p.reports),
    missing,
  };
}
