// `visync report`: client-ready reports (HTML, JSON, PDF) from the synced data, one per workspace and
// period, never an API call (docs/reports.md). Registering it loads only commander: the action
// imports the report modules (and Vega) when it runs.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CompareBasis, Period } from '../history/period.js';
import type { AccountReportOptions, AccountReports } from '../report/make.js';
import type { ReportFormat } from '../report/output.js';
import type { AccountOutcome } from '../report/overview/book.js';
import type { PdfSession } from '../report/render/pdf.js';
import type { ReportSettings } from '../report/settings.js';
import { EXIT_USAGE } from './exit-codes.js';
import { collect, unknownWorkspaceLine } from './options.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';
import { wholeBook } from './report-book.js';
import { registerReportLink } from './report-link.js';
import { registerReportMailPreview } from './report-mail-preview.js';
import { registerReportSend } from './report-send.js';

interface ReportFlags {
  account?: string;
  brand?: string[];
  period?: string;
  from?: string;
  to?: string;
  /** Not typed (its default): each workspace's `reports.formats` (workspace, account, top level). */
  format: ReportFormat[];
  out?: string;
  json?: boolean;
  compare?: CompareBasis;
}

const FORMATS = ['html', 'json', 'pdf', 'csv', 'xlsx'] as const;

/** Without --format and without reports.formats: the HTML and its JSON model (a PDF needs Chromium). */
const DEFAULT_FORMATS: ReportFormat[] = ['html', 'json'];

function parseCompare(value: string): CompareBasis {
  if (value === 'previous' || value === 'year') return value;
  throw new InvalidArgumentError(
    `unknown basis ${JSON.stringify(value)}: use previous (the period before) or year (the same period a year earlier)`,
  );
}

function parseFormats(value: string): ReportFormat[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = list.filter((f) => !(FORMATS as readonly string[]).includes(f));
  if (bad.length || list.length === 0)
    throw new InvalidArgumentError(
      `unknown format ${JSON.stringify(bad[0] ?? value)}: use html, json, pdf, csv, xlsx or several (html,json,xlsx)`,
    );
  return [...new Set(list)] as ReportFormat[];
}

/** What `report --help` says after the options: the periods, the basis, examples. */
const REPORT_HELP = [
  '',
  "Default period: the 30 days ending on the date of the account's newest complete run,",
  'compared with the 30 days before. A month is compared with the month before, a week with',
  'the week before. With --compare year (or reports.schedule.compare: year) each is compared with',
  'the same period a year earlier; a history that does not reach back reads "not comparable".',
  '',
  'Examples:',
  '  visync report --out ./reports',
  '  visync report --account acme --period 2026-10 --format html',
  '  visync report --brand brand_1 --from 2026-11-01 --to 2026-11-15 --out ./reports',
  '  visync report --period 2026-11 --compare year     # November against November a year earlier',
  '  visync report --format html,json,xlsx,csv --out ./reports   # the tables for a deck: report.xlsx, tables/*.csv',
  '',
  'With the top-level reports.agency a mapping ({ name: Northwind, locale: de-DE }), a run over',
  'every account (no --account, no --brand) also writes the whole book of all clients:',
  'agency/period=P/overview.html.',
  '',
  'Scheduled reports (reports.schedule) are made by the workers; `visync report send` mails the',
  'drafts (review: true) and any recipient not yet sent (docs/reports.md).',
].join('\n');

/** `--compare`: its default stands for each workspace's `reports.schedule.compare`, else previous. */
function compareOption(): Option {
  return (
    new Option(
      '--compare <basis>',
      'previous: against the period before; year: against the same period a year earlier',
    )
      .argParser(parseCompare)
      // Not typed: each workspace's own basis (the action tells them apart by getOptionValueSource).
      .default('previous', "each workspace's reports.schedule.compare, else previous")
  );
}

export function registerReport(program: Command, state: ProgramState, io: CommandIo): void {
  const report = program.command('report');
  registerReportSend(report, state, io);
  registerReportLink(report, state, io);
  registerReportMailPreview(report, state, io);
  report
    .summary('write client-ready HTML and JSON reports from the synced data (no API call)')
    .description(
      'Makes one report per workspace and period from the complete runs in the object store: KPI cards ' +
        'with the change against the previous period, the daily trend, per-engine scores, buyer intent, ' +
        'recommendations, reputation and what changed. Reads only synced data, never the API. Without ' +
        '--out the files go to the object store under reports/account=A/brand=B/period=P/ with a ' +
        'manifest.json of their SHA-256; with --out DIR to DIR/account=A/brand=B/period=P/. ' +
        'Exit codes: 0 written, 1 no complete run covers the period or a PDF failed, 64 usage error, 78 config error.',
    )
    .option('--account <name>', 'only this account (default: every configured account)')
    .option('--brand <id>', 'only this workspace (repeat for more; default: all)', collect)
    .option('--period <period>', 'YYYY-MM (a month), YYYY-Www (an ISO week) or YYYY-MM-DD_YYYY-MM-DD')
    .option('--from <date>', 'first day (YYYY-MM-DD), with --to')
    .option('--to <date>', 'last day (YYYY-MM-DD), with --from')
    .addOption(
      new Option(
        '--format <list>',
        'html, json, pdf, csv, xlsx, or several: html,json,pdf (pdf prints the HTML with Chromium, reports.chromiumPath; ' +
          'csv writes every table as tables/<table>.csv, xlsx one workbook report.xlsx with a sheet per table); ' +
          "default: each workspace's reports.formats, else html,json",
      )
        .argParser(parseFormats)
        // Shown in --help; the action tells a typed --format from this default (getOptionValueSource).
        .default([...DEFAULT_FORMATS], 'html,json'),
    )
    .addOption(compareOption())
    .option('--out <dir>', 'write into this folder instead of the object store')
    .option(
      '--json',
      'print one JSON document of the reports written (where) and the exit code; problems stay on stderr',
    )
    .addHelpText('after', REPORT_HELP)
    .action(exitWith(state, (flags: ReportFlags, cmd: Command) => reportCommand(flags, cmd, io)));
}

/** What `report` loads when it runs (not for --help), in the order reportCommand names them. */
function reportModules() {
  return Promise.all([
    import('../config/read-config.js'),
    import('../sinks/create-store.js'),
    import('../history/period.js'),
    import('../report/make.js'),
    import('../report/output.js'),
    import('../report/style.js'),
    import('../report/settings.js'),
    import('../util/errors.js'),
    import('../config/account-settings.js'),
    import('./accounts.js'),
  ]);
}

/** `visync report`: reads the complete runs and prints or writes the report. */
async function reportCommand(flags: ReportFlags, cmd: Command, io: CommandIo): Promise<number> {
  const [
    { readConfigWithoutKeys },
    { ObjectStores },
    period,
    make,
    output,
    style,
    settings,
    { errorMessage },
    { findAccount },
    { chosenAccounts },
  ] = await reportModules();
  const chosen = chosenPeriod(flags, period);
  const config = readConfigWithoutKeys(configOption(cmd));
  const accounts = chosenAccounts(config, flags.account).map((a) => a.name);
  const brands = flags.brand ?? [];
  const stores = new ObjectStores();
  // Reports written into the store: not into one a newer release wrote (exit 78). --out only reads it.
  if (!flags.out)
    await (await import('./claim-stores.js'))
      .claimStores(stores, config, accounts)
      .catch(async (err: unknown) => {
        await stores.close();
        throw err;
      });
  const settingsOf = (account: string, brandId?: string) =>
    settings.reportSettingsFor(config, findAccount(config, account), brandId);
  // --format wins; without it each workspace's reports.formats (workspace, account, top level),
  // else the default html,json (docs/reports.md).
  const typed = cmd.getOptionValueSource('format') === 'default' ? undefined : flags.format;
  const typedCompare = cmd.getOptionValueSource('compare') !== 'default';
  const configuredFormats = (account: string, brandId?: string): ReportFormat[] =>
    typed ?? settings.madeFormats(settingsOf(account, brandId));
  // The whole book: only when reports.agency is a mapping and the call covers every client of
  // every account (with --brand the other accounts write no overview, so they would be missing).
  const agency = !flags.account && brands.length === 0 ? settings.agencyBookSettings(config) : null;
  // PDF when a report asks for it, or the book does (its own formats: the top-level ones).
  const wantsPdf = typed
    ? typed.includes('pdf')
    : settings.pdfReportsConfigured(
        config,
        accounts.map((a) => findAccount(config, a)),
      ) || agency?.formats.includes('pdf') === true;
  // One Chromium for the whole run (its path is a top-level setting), loaded only for PDFs.
  const pdf = wantsPdf
    ? await (await import('../report/render/pdf.js')).PdfSession.open(
        settingsOf(accounts[0] as string).chromiumPath,
      ).catch((err: unknown) => {
        throw new CliError(errorMessage(err));
      })
    : undefined;
  const tally: Tally = { code: 0, written: [], found: new Set(), unread: [], outcomes: [] };
  try {
    for (const account of accounts) {
      const store = await stores.forAccount(config, account);
      const target = flags.out ? output.dirTarget(flags.out) : output.storeTarget(store);
      // A store that cannot be read fails this account in one line; the others still run.
      const r = await make
        .makeAccountReports({
          store,
          target,
          account,
          period: chosen,
          brands,
          // --compare wins; else the workspace's schedule's, so a report made again keeps its basis.
          compareFor: (b: string) =>
            (typedCompare ? flags.compare : undefined) ??
            settingsOf(account, b).schedule?.compare ??
            'previous',
          ...accountLook(account, { settingsOf, configuredFormats, style, pdf }),
          now: Date.now(),
        })
        .catch((err: unknown) => {
          io.err(`visync: account ${account}: ${errorMessage(err)}`);
          return undefined;
        });
      countAccount(tally, account, r, flags, io);
    }
    if (agency)
      await wholeBook({ config, flags, io, tally, stores, accounts, style, output, pdf, typed, agency });
  } finally {
    await pdf?.close();
    await stores.close();
  }
  return finishReport(
    tally,
    { brands, accounts, flags, io },
    () => typed ?? configuredFormats(accounts[0] as string),
  );
}

/** --period, or --from and --to; undefined for the default period. A malformed one is a usage error. */
function chosenPeriod(flags: ReportFlags, period: typeof import('../history/period.js')): Period | undefined {
  let chosen: Period | undefined;
  if (flags.period !== undefined && (flags.from !== undefined || flags.to !== undefined))
    throw new CliError('give either --period or --from and --to, not both', EXIT_USAGE);
  if (flags.period !== undefined) {
    chosen = period.parsePeriod(flags.period);
    if (!chosen)
      throw new CliError(
        `malformed period ${JSON.stringify(flags.period)}: expected YYYY-MM, YYYY-Www or YYYY-MM-DD_YYYY-MM-DD`,
        EXIT_USAGE,
      );
  } else if (flags.from !== undefined || flags.to !== undefined) {
    chosen = flags.from && flags.to ? period.parseRange(flags.from, flags.to) : undefined;
    if (!chosen)
      throw new CliError(
        `malformed period --from ${flags.from ?? '(missing)'} --to ${flags.to ?? '(missing)'}: give both as YYYY-MM-DD, --from not after --to`,
        EXIT_USAGE,
      );
  }
  const days = chosen ? period.dayCount(chosen.from, chosen.to) : 0;
  if (chosen && days > period.MAX_PERIOD_DAYS)
    throw new CliError(
      `period ${chosen.from} to ${chosen.to} is ${days} days: a report covers at most ${period.MAX_PERIOD_DAYS} days (about 3 years)`,
      EXIT_USAGE,
    );
  return chosen;
}

interface LookSources {
  settingsOf: (account: string, brandId?: string) => ReportSettings;
  configuredFormats: (account: string, brandId?: string) => ReportFormat[];
  style: typeof import('../report/style.js');
  pdf: PdfSession | undefined;
}

/** How one account's reports look and print, per workspace: formats, style, PDF, and its overview. */
function accountLook(
  account: string,
  { settingsOf, configuredFormats, style, pdf }: LookSources,
): Pick<AccountReportOptions, 'formats' | 'formatsFor' | 'styleFor' | 'printPdf' | 'overview'> {
  return {
    formats: configuredFormats(account),
    formatsFor: (brandId) => configuredFormats(account, brandId),
    styleFor: (brandId) => style.styleOf(settingsOf(account, brandId)),
    printPdf:
      pdf &&
      ((html, brandId) => {
        const s = settingsOf(account, brandId);
        return pdf.render(html, {
          pageSize: s.pageSize,
          ...style.pdfFooter(style.styleOf(s)),
          locale: s.locale ?? null,
        });
      }),
    // The account's overview beside its reports, in the account's look and locale.
    overview: {
      style: style.styleOf(settingsOf(account)),
      print: style.overviewPrinter(
        configuredFormats(account).includes('pdf') ? pdf : undefined,
        settingsOf(account),
      ),
    },
  };
}

/** What one `visync report` has done so far, account by account. */
interface Tally {
  code: number;
  /** --json: what was written, printed once at the end (docs/cli-json.md). */
  written: { account: string; brand_id: string; period: string; location: string }[];
  found: Set<string>;
  /** Accounts whose store could not be read: a --brand of theirs is not "unknown". */
  unread: string[];
  /** Each account's part of the whole book, or what tells why it has none (src/report/overview/book.ts). */
  outcomes: AccountOutcome[];
  /** Where the whole book went, when it was written. */
  book?: string;
}

/** One account's reports (undefined: its store could not be read) into the tally, lines printed. */
function countAccount(
  tally: Tally,
  account: string,
  r: AccountReports | undefined,
  flags: ReportFlags,
  io: CommandIo,
): void {
  tally.outcomes.push(r?.book ? { account, book: r.book } : { account, made: r });
  if (!r) {
    tally.code = 1;
    tally.unread.push(account);
    return;
  }
  // Known to a run of the account: a --brand without days in the period has its own line (exit 1).
  for (const w of r.known) tally.found.add(w);
  for (const p of r.problems) {
    io.err(`visync: ${p.line}`);
    tally.code = Math.max(tally.code, 1);
  }
  for (const m of r.made) {
    tally.written.push({ account, brand_id: m.brandId, period: m.period, location: m.location });
    if (!flags.json) io.out(`${account} ${m.brandId} ${m.period}: ${m.location}`);
  }
  if (r.overview && !flags.json) io.out(`${account} overview ${r.made[0]?.period}: ${r.overview}`);
}

/** The unknown --brand lines, the --json document, and the exit code. */
async function finishReport(
  tally: Tally,
  o: { brands: string[]; accounts: string[]; flags: ReportFlags; io: CommandIo },
  formats: () => ReportFormat[],
): Promise<number> {
  const unknown = tally.unread.length ? [] : o.brands.filter((b) => !tally.found.has(b));
  for (const b of unknown) o.io.err(unknownWorkspaceLine(b, o.accounts));
  const exit = unknown.length ? EXIT_USAGE : tally.code;
  if (o.flags.json) {
    const { exitFields } = await import('./json-result.js');
    o.io.verbatim(
      JSON.stringify(
        {
          reports: tally.written,
          ...(tally.book ? { agency_overview: tally.book } : {}),
          formats: formats(),
          ...exitFields(exit),
        },
        null,
        2,
      ),
    );
  }
  return exit;
}
