// The whole book of one period from what the store holds (docs/reports.md, "The whole book"): each
// configured account's overview rows read back from its reports' report.json (./make.ts
// overviewContent, the very rows its own overview shows), for the workers' scheduled delivery,
// whose makes run one account at a time after that account's night. Every account is read from the
// one store they share (the caller checks that they do: the book's links are relative).
import { completeRuns } from '../../history/complete-runs.js';
import { type Period, previousPeriod } from '../../history/period.js';
import { returnsDaysOf } from '../../history/period-workspaces.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { reportableWorkspaces } from '../model/account-data.js';
import type { ReportFormat, ReportTarget } from '../output.js';
import { type AccountOutcome, type Book, wholeBook } from './book.js';
import { overviewContent } from './make.js';
import type { ClientName } from './names.js';

export interface StoredBookInput {
  store: ObjectStore;
  target: ReportTarget;
  /** Every configured account, in config order. */
  accounts: readonly string[];
  period: Period;
  /** The clock the accounts' complete runs are read with (src/history/complete-runs.ts). */
  now: number;
  /** The formats a workspace's reports are made in (a page to link, or JSON only). */
  formatsFor: (account: string, brandId: string) => readonly ReportFormat[];
  /** The agency's own name and domain for a client (reports.workspaces.<id>.clientName). */
  clientFor: (account: string, brandId: string) => ClientName;
  /** An account whose store could not be read: named `unreadable` on the page, told here why. */
  onUnreadable: (account: string, err: unknown) => void;
}

/** The book of `period` from the store; null when no account has a report of it there. */
export async function bookFromStore(i: StoredBookInput): Promise<Book | null> {
  const outcomes: AccountOutcome[] = [];
  for (const account of i.accounts) outcomes.push(await storedPart(i, account));
  return wholeBook(outcomes);
}

/** One account's part of the book, or why it has none, as `visync report` would say. */
async function storedPart(i: StoredBookInput, account: string): Promise<AccountOutcome> {
  const { period } = i;
  try {
    const runs = await completeRuns(i.store, account, i.now);
    if (runs.length === 0) return { account, reason: 'no_runs' };
    const workspaces = runs.some((r) => returnsDaysOf(r, period)) ? reportableWorkspaces(runs, period) : [];
    if (workspaces.length === 0) return { account, reason: 'not_covered' };
    const formatsFor = (b: string) => i.formatsFor(account, b);
    if (!workspaces.some((b) => formatsFor(b).some((f) => f === 'html' || f === 'pdf')))
      return { account, reason: 'no_pages' };
    const previous = previousPeriod(period);
    const { rows, reports } = await overviewContent({
      ...{ store: i.store, target: i.target, account, runs, period, previous, workspaces },
      made: new Map(),
      formatsFor,
      clientFor: (b) => i.clientFor(account, b),
    });
    if (reports.length === 0) return { account, reason: 'no_report' };
    // To date when one of its reports is (a period's reports are all to date or all final).
    const through = reports.find((r) => r.period_status?.in_progress)?.period_status.end;
    const toDate = through === undefined ? undefined : { through };
    return { account, book: { account, period, previous, toDate, rows, reports } };
  } catch (err) {
    i.onUnreadable(account, err);
    return { account, reason: 'unreadable' };
  }
}
