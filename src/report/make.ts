// One account's reports: its complete runs, the period, each needed curated part read once, one model
// per workspace, the chosen formats written. "No data" comes back as a ReportProblem line for the CLI
// to print, and so does a workspace whose PDF Chromium could not print; which workspaces exist comes back too, so the CLI can name a --brand no account has.

import { inProgress } from '../history/comparison.js';
import { type CompleteRun, completeRuns } from '../history/complete-runs.js';
import {
  type CompareBasis,
  comparedPeriod,
  defaultPeriod,
  type Period,
  previousPeriod,
} from '../history/period.js';
import { knownWorkspaces, missingDaysLine, returnsDaysOf } from '../history/period-workspaces.js';
import type { ObjectStore } from '../sinks/object-store.js';
import type { ArtefactFacts } from './artefact.js';
import {
  periodWorkspaces,
  readAccountData,
  reportableWorkspaces,
  type WorkspaceData,
} from './model/account-data.js';
import { buildModel } from './model/model.js';
import type { ReportModel } from './model/report-shape.js';
import { csvName, type ReportFile, type ReportFormat, type ReportTarget } from './output.js';
import type { AccountBook } from './overview/book.js';
import { type OverviewOptions, writeOverview } from './overview/make.js';
import { type OverviewReport, overviewPart } from './overview/rows.js';
import { PdfError, PRINTS_AT_ONCE } from './render/pdf.js';
import { reportJsonText } from './render/report-json.js';
import type { ReportStyle } from './style.js';
import { NotesError, readNotes } from './summary/notes.js';
import { tableCsv } from './tables/csv.js';
import { reportTables, workbookFacts } from './tables/report-tables.js';

export interface ReportProblem {
  /**
   * pdf: that workspace's PDF could not be printed; notes: its notes file is not read
   * (./summary/notes.ts). Nothing of that workspace was written, the others were.
   */
  kind: 'no data' | 'pdf' | 'notes';
  line: string;
}

export interface MadeReport {
  brandId: string;
  period: string;
  location: string;
}

export interface AccountReports {
  made: MadeReport[];
  problems: ReportProblem[];
  /** Workspaces a report of the period is made for without --brand (account-data.ts reportableWorkspaces). */
  workspaces: string[];
  /** Every workspace a complete run of the account landed: a --brand outside these is unknown. */
  known: string[];
  partsRead: number;
  partsTotal: number;
  /** Where the account's overview of the period went, when one was written. */
  overview?: string;
  /** The account's part of the whole book (./overview/book.ts): its overview's rows, when one was written. */
  book?: AccountBook;
}

export interface AccountReportOptions {
  store: ObjectStore;
  target: ReportTarget;
  account: string;
  /** Undefined: the default 30 days ending on the newest complete run's date. */
  period?: Period | undefined;
  /**
   * What each workspace's report compares with (`--compare`, else its `reports.schedule.compare`);
   * unset: the period before.
   */
  compareFor?: ((brandId: string) => CompareBasis) | undefined;
  /** Only these workspaces; empty: all. */
  brands: readonly string[];
  formats: readonly ReportFormat[];
  /** A workspace's own formats (`reports.formats` of its merged settings); unset: `formats` for all. */
  formatsFor?: ((brandId: string) => readonly ReportFormat[]) | undefined;
  /** The look of one workspace's report (the `reports` config: top level, account, workspace). */
  styleFor: (brandId: string) => ReportStyle;
  /** Prints a workspace's report HTML to PDF (src/report/render/pdf.ts); needed only for the pdf format. */
  printPdf?: (html: string, brandId: string) => Promise<Uint8Array>;
  /** The account's complete runs when the caller has read them already (default: read here). */
  runs?: readonly CompleteRun[] | undefined;
  /** Only to tell which run dates lie ahead of today (src/records/clock.ts); never in a report. */
  now: number;
  /** Write the account's overview of the period beside the reports (src/report/overview/); unset: none. */
  overview?: OverviewOptions | undefined;
}

/** The period to report and the workspaces it can be made for, or why there is nothing to report. */
function periodToReport(
  o: AccountReportOptions,
  runs: readonly CompleteRun[],
): { period: Period; available: string[] } | ReportProblem {
  const newest = runs
    .map((r) => r.runDate)
    .sort()
    .at(-1);
  if (newest === undefined)
    return {
      kind: 'no data',
      line: `account ${o.account}: no complete run in ${o.store.location}; run \`visync run --once\` first`,
    };
  const period = o.period ?? defaultPeriod(newest);
  // A run whose visibility window (window_start to its date) reaches into the period holds days of
  // it: a week's report works whenever complete runs cover the week, whatever their dates.
  const covering = runs.filter((r) => returnsDaysOf(r, period));
  if (covering.length === 0) {
    const oldest = runs.map((r) => r.runDate).sort()[0];
    return {
      kind: 'no data',
      line: `account ${o.account}: no complete run covers period ${period.label} (${period.from} to ${period.to}); complete runs are dated ${oldest} to ${newest}`,
    };
  }
  return { period, available: reportableWorkspaces(runs, period) };
}

/** One workspace's model and its files, the PDF perhaps still printing. */
async function workspaceReport(
  o: AccountReportOptions,
  workspace: WorkspaceData,
  at: { runs: readonly CompleteRun[]; period: Period; previous: Period; basis: CompareBasis },
): Promise<{ report: ReportModel; files: Promise<ReportFile[] | ReportProblem> }> {
  const { period, previous } = at;
  // The report of the period compared with, on either basis: it stated that period's figures, which
  // this report states again (a year-on-year report is revised by last year's report of the month).
  const previousReport = await o.target.stated(o.account, workspace.brandId, previous.label);
  const style = o.styleFor(workspace.brandId);
  const report = buildModel({
    account: o.account,
    workspace,
    period,
    previous,
    style,
    inProgress: inProgress(at.runs, period),
    previousReport,
    comparison: {
      basis: at.basis,
      historyBegins: at.basis === 'year' ? historyBegins(at.runs, previous) : null,
    },
  });
  // The PDF is that HTML printed: rendered once for both.
  // html.js loads Vega: only when a page is asked for.
  const formats = o.formatsFor?.(workspace.brandId) ?? o.formats;
  const withPage = formats.some(isPage);
  // Read for the JSON model too: the mail says the note of the version it sends (report.json's).
  let notes: string | null = null;
  try {
    notes = await readNotes(style.notesDir ?? null, o.account, workspace.brandId, period.label);
  } catch (err) {
    if (!(err instanceof NotesError)) throw err;
    const line = `account ${o.account}, workspace ${workspace.brandId}: ${err.message}; its report was not written, the other workspaces' were`;
    return { report, files: Promise.resolve({ kind: 'notes', line }) };
  }
  const page = withPage
    ? await (await import('./render/html.js')).renderHtml(report, style, {
        brandName: brandNameOf(workspace),
        notes,
      })
    : '';
  const files = reportFiles(o, formats, report, page, {
    brandId: workspace.brandId,
    style,
    brandName: brandNameOf(workspace),
    notes,
  });
  // Awaited in order by the caller; a failure of one still in flight then is not left unheard.
  files.catch(() => undefined);
  return { report, files };
}

export async function makeAccountReports(o: AccountReportOptions): Promise<AccountReports> {
  const out: AccountReports = {
    made: [],
    problems: [],
    workspaces: [],
    known: [],
    partsRead: 0,
    partsTotal: 0,
  };
  const runs = o.runs ?? (await completeRuns(o.store, o.account, o.now));
  out.known = knownWorkspaces(runs);
  const found = periodToReport(o, runs);
  // A --brand the account knows that has no day in the period: its own line says what is missing.
  const missing = (period: Period, withDays: readonly string[]) =>
    o.brands
      .filter((b) => out.known.includes(b) && !withDays.includes(b))
      .map(
        (b): ReportProblem => ({
          kind: 'no data',
          line: `account ${o.account}: ${missingDaysLine(runs, b, period)}`,
        }),
      );
  if ('kind' in found) {
    const lines = o.period ? missing(o.period, []) : [];
    out.problems.push(...(lines.length ? lines : [found]));
    return out;
  }
  const { period, available } = found;
  out.workspaces = available;
  // --brand: also any workspace with days in the period, a client the account no longer has included.
  const reportable = periodWorkspaces(runs, period);
  out.problems.push(...missing(period, reportable));
  const brandIds = o.brands.length ? o.brands.filter((b) => reportable.includes(b)) : available;
  if (available.length === 0 && o.brands.length === 0) {
    out.problems.push({
      kind: 'no data',
      line: `account ${o.account}: no complete run that covers ${period.label} holds a workspace (its brands table); nothing to report`,
    });
    return out;
  }
  if (brandIds.length === 0) return out;
  const previous = previousPeriod(period);
  // A workspace's PDF prints while the next one's report is made, and PRINTS_AT_ONCE print at once
  // (as many as the PdfSession does); files are written, and problems told, in workspace order.
  const pending: {
    brandId: string;
    files: Promise<ReportFile[] | ReportProblem>;
    facts: ArtefactFacts;
  }[] = [];
  /** What the overview needs of each report made; one whose files were not written is dropped. */
  const slim = new Map<string, OverviewReport>();
  /** The newest day of a period still running, from its reports' models; undefined: final. */
  let running: string | undefined;
  const settleOldest = async () => {
    const oldest = pending.shift();
    if (!oldest) return;
    const files = await oldest.files;
    if (!Array.isArray(files)) {
      out.problems.push(files);
      slim.delete(oldest.brandId);
      return;
    }
    const location = await o.target.write(o.account, oldest.brandId, period.label, files, oldest.facts);
    out.made.push({ brandId: oldest.brandId, period: period.label, location });
  };
  // One read of the account's data per basis (most accounts have one): each reads its two periods.
  const bases = new Map<CompareBasis, string[]>();
  for (const b of brandIds) {
    const basis = o.compareFor?.(b) ?? 'previous';
    bases.set(basis, [...(bases.get(basis) ?? []), b]);
  }
  for (const [basis, ids] of bases) {
    const compared = comparedPeriod(period, basis);
    const data = await readAccountData(o.store, runs, ids, period, compared);
    out.partsRead += data.partsRead;
    out.partsTotal = data.partsTotal;
    for (const workspace of data.workspaces) {
      const { report, files } = await workspaceReport(o, workspace, {
        runs,
        period,
        previous: compared,
        basis,
      });
      // Whether it is a to-date report travels with its files (manifest.json), so a send can say so.
      const facts = { toDate: report.period_status.in_progress, through: report.period_status.end };
      if (facts.toDate) running = facts.through;
      pending.push({ brandId: workspace.brandId, files, facts });
      slim.set(workspace.brandId, overviewPart(report));
      if (pending.length > PRINTS_AT_ONCE) await settleOldest();
    }
  }
  while (pending.length) await settleOldest();
  // The reports of one period and runs are all to date or all final; the overview says which.
  const toDate = running === undefined ? undefined : { through: running };
  // Beside pages only: a JSON-only run (a data export) writes no overview page.
  const pages = out.made.some((m) => (o.formatsFor?.(m.brandId) ?? o.formats).some(isPage));
  if (o.overview && pages) {
    const written = await writeOverview({
      ...{ store: o.store, target: o.target, account: o.account, runs, period, previous },
      // A removed client's report made by --brand has its row too.
      ...{ workspaces: [...new Set([...available, ...brandIds])].sort(), made: slim, overview: o.overview },
      toDate,
      formatsFor: (b) => o.formatsFor?.(b) ?? o.formats,
      clientFor: (b) => ({ name: o.styleFor(b).clientName, domain: o.styleFor(b).clientDomain }),
    });
    out.overview = written.location;
    out.book = { account: o.account, period, previous, toDate, rows: written.rows, reports: written.reports };
  }
  return out;
}

/** Formats that are the report's page (its HTML, or that printed): the others need no page. */
const isPage = (f: ReportFormat) => f === 'html' || f === 'pdf';

/** A report's files in the order of `formats`, or the problem that kept its PDF from printing. */
async function reportFiles(
  o: AccountReportOptions,
  formats: readonly ReportFormat[],
  report: ReportModel,
  page: string,
  {
    brandId,
    style,
    brandName,
    notes,
  }: { brandId: string; style: ReportStyle; brandName: string | null; notes: string | null },
): Promise<ReportFile[] | ReportProblem> {
  const files: ReportFile[] = [];
  // The spreadsheets' tables, made once for csv and xlsx (./tables/).
  const tables = formats.some((f) => f === 'csv' || f === 'xlsx')
    ? reportTables(report, style, brandName)
    : [];
  for (const format of formats) {
    if (format === 'json') files.push({ format, body: reportJsonText(report, notes) });
    else if (format === 'html') files.push({ format, body: page });
    else if (format === 'csv')
      for (const t of tables) files.push({ format, name: csvName(t.name), body: tableCsv(t) });
    else if (format === 'xlsx') {
      // Loads exceljs: only when a workbook is asked for.
      const { tablesXlsx } = await import('./tables/xlsx.js');
      files.push({ format, body: await tablesXlsx(tables, workbookFacts(report, style)) });
    } else {
      if (!o.printPdf) throw new Error('the pdf format needs a PDF printer (printPdf)');
      try {
        files.push({ format, body: await o.printPdf(page, brandId) });
      } catch (err) {
        if (!(err instanceof PdfError)) throw err;
        return {
          kind: 'pdf',
          line: `account ${o.account}, workspace ${brandId}: ${err.message}; its report was not written, the other workspaces' were`,
        };
      }
    }
  }
  return files;
}

/**
 * The first day the account's complete runs hold (the oldest visibility window's start), when none
 * of them returns a day of the period compared with: that comparison is "not comparable, the history
 * begins on D". Null when a run reaches into the period.
 */
function historyBegins(runs: readonly CompleteRun[], compared: Period): string | null {
  if (runs.some((r) => returnsDaysOf(r, compared))) return null;
  return (
    runs
      .map((r) => r.windowStart)
      .sort()
      .at(0) ?? null
  );
}

/** The brand's name in the data (its brands row at the period's end), for the client name override. */
function brandNameOf(workspace: {
  end: { brands?: { rows: readonly Record<string, unknown>[] } };
}): string | null {
  const name = workspace.end.brands?.rows[0]?.name;
  return typeof name === 'string' ? name : null;
}
