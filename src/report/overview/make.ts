// One account's overview of a period, written beside its workspaces' reports (./rows.ts, ./page.ts):
// the reports made in this call, the others' report.json read back from the same place (and the
// names of those without one, ./names.ts), the period's brand events, then overview.html (and
// overview.pdf when the reports have PDFs).
import type { CompleteRun } from '../../history/complete-runs.js';
import type { Period } from '../../history/period.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import type { ReportFile, ReportFormat, ReportTarget } from '../output.js';
import type { ReportStyle } from '../style.js';
import { periodEvents } from './events.js';
import { type ClientName, clientNames } from './names.js';
import { type OverviewReport, type OverviewRow, overviewRows, portfolioTrend, reportHref } from './rows.js';

export interface OverviewOptions {
  /** The account's look and locale (its `reports` settings without a workspace's). */
  style: ReportStyle;
  /** Prints the overview to PDF with the account's page settings; unset: no overview.pdf. */
  print?: ((html: string) => Promise<Uint8Array>) | undefined;
}

export interface OverviewInput {
  store: ObjectStore;
  target: ReportTarget;
  account: string;
  runs: readonly CompleteRun[];
  period: Period;
  /** The period is still running (its reports are to date), through this day. */
  toDate?: { through: string } | undefined;
  previous: Period;
  /** Every workspace a report of the period can be made for, one row each. */
  workspaces: readonly string[];
  /** The reports written in this call, by workspace id. */
  made: ReadonlyMap<string, OverviewReport>;
  formatsFor: (brandId: string) => readonly ReportFormat[];
  /** The agency's own name and domain for a client (reports.workspaces.<id>.clientName, clientDomain); null: the data's. */
  clientFor?: (brandId: string) => ClientName;
  overview: OverviewOptions;
}

/** What an account's overview showed: where overview.html went, its rows and the reports read. */
export interface WrittenOverview {
  location: string;
  rows: OverviewRow[];
  reports: OverviewReport[];
}

/** The input of the overview's rows: all but how its page looks and prints. */
export type OverviewContentInput = Omit<OverviewInput, 'overview' | 'toDate'>;

/**
 * The overview's rows and the reports they read, without writing a page: the reports made in this
 * call, the others' report.json read back from the target. Also the whole book's rows of an account
 * whose reports another call made (./book-store.ts).
 */
export async function overviewContent(
  i: OverviewContentInput,
): Promise<{ rows: OverviewRow[]; reports: OverviewReport[] }> {
  const items = [];
  for (const brandId of i.workspaces) {
    const report = i.made.get(brandId) ?? (await i.target.read(i.account, brandId, i.period.label));
    const formats = i.formatsFor(brandId);
    const ext = formats.includes('html') ? 'html' : formats.includes('pdf') ? 'pdf' : null;
    items.push({ brandId, report, href: ext === null ? null : reportHref(brandId, i.period.label, ext) });
  }
  // A workspace whose report is not at hand (made with --brand, the others not made yet) is still
  // named, from the data, with its domain: two clients of one name are told apart by it.
  const unnamed = items.filter((x) => !x.report?.cover.client_name).map((x) => x.brandId);
  const names = await clientNames(i.store, i.runs, i.period, unnamed, i.clientFor);
  const rows = overviewRows(items, await periodEvents(i.store, i.runs, i.period), names);
  const reports = items.map((x) => x.report).filter((r): r is OverviewReport => r !== undefined);
  return { rows, reports };
}

/** Writes the overview; returns where overview.html went, and its rows for the whole book (./book.ts). */
export async function writeOverview(i: OverviewInput): Promise<WrittenOverview> {
  const { rows, reports } = await overviewContent(i);
  // Vega loads with the page only when there is an overview to render (test/startup-imports.test.ts).
  const { renderOverview } = await import('./page.js');
  const page = await renderOverview({
    period: i.period,
    toDate: i.toDate,
    previous: i.previous,
    rows,
    trend: portfolioTrend(reports),
    style: i.overview.style,
  });
  const files: ReportFile[] = [{ format: 'html', body: page }];
  if (i.overview.print) files.push({ format: 'pdf', body: await i.overview.print(page) });
  return { location: await i.target.writeOverview(i.account, i.period.label, files), rows, reports };
}
