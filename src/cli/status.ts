import type { Command } from 'commander';
import type { LedgerRun } from '../../jobs/ledger.js';
import {
  type OpenReport,
  type ReviewedReport,
  SHOWN_STATES,
  type ToDateReport,
} from '../../jobs/report-index.js';
import type { FailedRun, StatusReport } from '../../jobs/status.js';
import { currentPhase } from '../../src/records/run-state.js';
import { shellWord } from '../util/shell-word.js';
import { terminalSafe } from '../util/terminal.js';
import { shortened, wrapped } from '../util/text.js';
import { collect } from './options.js';
import { type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';
import { terminalWidth } from './terminal-width.js';

interface StatusFlags {
  account?: string[];
  json?: boolean;
}

export function registerStatus(program: Command, state: ProgramState, io: CommandIo): void {
  program
    .command('status')
    .summary('runs per account and queue counts, from Redis')
    .description(
      'Per account: the last successful run, runs queued or running (with progress), recent failed or ' +
        'partial runs with their reasons, the next nightly run, and the request budget in use. Then the ' +
        'queue counts. Reads Redis (no worker needs to run), and the manifests of failed or partial runs ' +
        'for their reasons. Lines keep to the terminal width (100 columns when not a terminal): a long ' +
        'reason is cut, with the command that shows the run whole (visync runs show RUN_ID).',
    )
    .option('--account <name>', 'only this account (repeatable)', collect)
    .option('--json', 'print JSON for scripts')
    .action(exitWith(state, (flags: StatusFlags, cmd: Command) => statusCommand(flags, cmd, io)));
}

/** `visync status`: runs per account and queue counts, from Redis. */
async function statusCommand(flags: StatusFlags, cmd: Command, io: CommandIo): Promise<number> {
  const [
    { withJobsClient },
    { readStatus },
    { readConfigWithoutKeys },
    { ObjectStores },
    { runProblems },
    { chosenAccounts },
  ] = await Promise.all([
    import('../../jobs/jobs-client.js'),
    import('../../jobs/status.js'),
    import('../config/read-config.js'),
    import('../sinks/create-store.js'),
    import('./run-problems.js'),
    import('./accounts.js'),
  ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  // Before Redis is asked: an unknown name is a usage error naming the configured ones.
  chosenAccounts(config, flags.account);
  // Each account's own store (its fs.dir or s3.prefix), opened at its first use only: a failed
  // or partial run's manifest, or an open scheduled report's record (with sinks.s3 that loads
  // the AWS SDK).
  const stores = new ObjectStores();
  const storeFor = (account: string) => stores.forAccount(config, account);
  // Grouped under its account already: each reason without the account in front.
  const reasonsOf = async (r: LedgerRun) =>
    (await runProblems(() => storeFor(r.account), r)).map((p) => p.text);
  const report = await withJobsClient(config, 'visync status', (client) =>
    readStatus({
      ...client,
      config,
      reasonsOf,
      accounts: flags.account,
      storeFor,
    }),
  ).finally(() => stores.close());
  if (flags.json) io.verbatim(JSON.stringify(report, null, 2));
  else for (const line of renderStatus(report, terminalWidth())) io.out(line);
  return 0;
}

function describeRun(r: LedgerRun): string {
  const failed = r.workspaces_failed ? ` (${r.workspaces_failed} failed)` : '';
  const progress =
    r.workspaces_total !== undefined ? ` ${r.workspaces_done}/${r.workspaces_total} workspaces${failed}` : '';
  const window = r.visibility_days ? ` ${r.visibility_days}d` : '';
  const phase = currentPhase(r)?.phase;
  const waits = phase ? `, ${phase}` : '';
  // A run the ledger does not know (made without Redis) is read from its manifest, and says so.
  const where = r.from === 'manifest' ? ', from its manifest' : '';
  return `${r.run_id} (${r.kind}${window}, ${r.status}${progress}${waits}, ${r.calls} requests${where})`;
}

/**
 * The run's line, then its first few reasons one a line, each at most `width` characters: a reason
 * that does not fit (an upstream's JSON error runs to hundreds) is cut, and the last line names the
 * command that shows them all whole.
 */
function failedLines(r: FailedRun, width: number): string[] {
  const lines = [`  ${r.status}: ${describeRun(r)}`];
  const shown = r.reasons.slice(0, MAX_REASONS);
  let cut = r.reasons.length > shown.length;
  for (const reason of shown) {
    const line = shortened(reason, width - REASON_INDENT.length);
    cut ||= line !== reason;
    lines.push(`${REASON_INDENT}${line}`);
  }
  const more = r.reasons.length - shown.length;
  if (cut)
    lines.push(
      `${REASON_INDENT}${more > 0 ? `and ${more} more; ` : ''}all of them whole: visync runs show ${r.run_id}`,
    );
  return lines;
}

const REASON_INDENT = '    ';
const MAX_REASONS = 3;

export function renderStatus(report: StatusReport, width: number): string[] {
  const lines: string[] = [];
  const reload = report.config_reload_failed;
  // First: the schedules and settings below are the previous config's, not the file's.
  if (reload)
    lines.push(
      `warning: config reload failed at ${reload.failed_at} (worker ${reload.worker}): ${reload.reason}; the worker runs the previous config`,
    );
  for (const a of report.accounts) {
    lines.push(`${a.account}`);
    lines.push(
      `  last success: ${a.last_success ? `${describeRun(a.last_success)} finished ${a.last_success.finished_at ?? '?'}` : 'none yet'}`,
    );
    lines.push(`  next nightly: ${a.next_nightly ?? 'no schedule (start a worker to install it)'}`);
    for (const r of a.running) lines.push(`  running: ${describeRun(r)}`);
    for (const r of a.failed) lines.push(...failedLines(r, width));
    const paused =
      a.budget.paused_for_ms > 0
        ? `, paused for ${Math.ceil(a.budget.paused_for_ms / 1000)} s (Retry-After)`
        : '';
    lines.push(`  budget: ${a.budget.in_window}/${a.budget.limit} requests in the current window${paused}`);
    const reports = describeReports(a.account, a.reports ?? []);
    if (reports) lines.push(`  reports: ${reports}`);
    const toDate = describeToDate(a.reports_to_date ?? []);
    if (toDate) lines.push(`  reports to date: ${toDate}`);
    for (const r of a.reports_reviewed ?? []) lines.push(`  reviewed: ${describeReviewed(r)}`);
  }
  lines.push(`queue: ${describeCounts(report.queue)}`);
  // Scheduled reports and digests, on a queue of their own (a stuck mail server holds no finish).
  if (report.report_queue) lines.push(`report queue: ${describeCounts(report.report_queue.queue)}`);
  const batches = report.load_batches;
  lines.push(
    `load batches: ${batches.runs_waiting} ${batches.runs_waiting === 1 ? 'run' : 'runs'} awaiting a batch`,
  );
  // The runs' finish jobs (curate and record) and the load batches, on one queue (docs/operations.md).
  lines.push(`finish queue: ${describeCounts(report.finish_queue.queue)}`);
  // Every line within the width; the failed runs' lines above say where their whole reasons are.
  return lines.flatMap((l) => fitted(l, width));
}

/** The line as it is when it fits, else wrapped with its continuation lines indented under it. */
function fitted(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const lead = ' '.repeat(line.length - line.trimStart().length);
  const [first, ...rest] = wrapped(line, width, lead);
  return [first ?? '', ...wrapped(rest.join(' '), width, `${lead}    `)];
}

/** `1 stale (2026-10), 2 draft (2026-10, 2026-W44)`: counts per state and their periods, and what recovers them. */
function describeReports(account: string, open: readonly OpenReport[]): string {
  const parts: string[] = [];
  for (const state of SHOWN_STATES) {
    const of = open.filter((r) => r.state === state);
    if (of.length)
      parts.push(`${of.length} ${state} (${[...new Set(of.map((r) => r.period))].sort().join(', ')})`);
  }
  // The command that sends each period's drafts, as it is to be typed: `report send` alone takes
  // each workspace's newest due period, which a draft's need not be.
  const hints: string[] = [];
  const drafts = open.filter((r) => r.state === 'draft');
  for (const period of [...new Set(drafts.map((r) => r.period))].sort())
    hints.push(
      draftSendHint(
        account,
        period,
        drafts.filter((r) => r.period === period).map((r) => r.brand_id),
      ),
    );
  // A stale report is made at the next nightly run after a complete run returned its period's
  // last day (src/delivery/scheduled/deliver.ts); when none will, a person makes it and sends it.
  for (const period of [...new Set(open.filter((r) => r.state === 'stale').map((r) => r.period))].sort())
    hints.push(
      `to send ${period} now: visync report --account ${account} --period ${period}, then visync report send --account ${account} --period ${period}`,
    );
  return parts.length ? [parts.join(', '), ...hints].join('; ') : '';
}

/** Past this many drafts of a period, its command names the period alone (every draft of it is sent). */
const NAMED_DRAFTS = 3;

/**
 * `to send the draft of 2026-10: visync report send --account acme --brand ws_1 --period 2026-10`:
 * a few drafts each named by --brand, more by their period alone (the command then also mails any
 * recipient of that period's other reports not sent yet, as `report send --period` does).
 */
function draftSendHint(account: string, period: string, brands: readonly string[]): string {
  const named = brands.length <= NAMED_DRAFTS;
  const flags = named ? brands.map((b) => ` --brand ${shellWord(b)}`).join('') : '';
  const what = brands.length === 1 ? 'the draft' : `the ${brands.length} drafts`;
  return `to send ${what} of ${period}: visync report send --account ${account}${flags} --period ${period}`;
}

/**
 * `1 sent by hand (2026-12 through 2026-12-06); the final reports follow when their periods complete`:
 * to-date reports out, none of them the last word on its period.
 */
function describeToDate(out: readonly ToDateReport[]): string {
  if (!out.length) return '';
  const periods = [...new Set(out.map((r) => (r.through ? `${r.period} through ${r.through}` : r.period)))]
    .sort()
    .join(', ');
  return `${out.length} sent by hand (${periods}); the final reports follow when their periods complete`;
}

/**
 * `ws_1 2026-10: held by alice at 2026-11-02T09:00:00.000Z (wrong logo)` or `ws_2 2026-10: sent,
 * approved by alice at ...`: a review page's action, who and when (the reason made terminal-safe;
 * the `reports:` line above says how to send a held draft: `report send --brand` releases it).
 */
function describeReviewed(r: ReviewedReport): string {
  const head = `${r.brand_id} ${r.period}`;
  if (r.held)
    return terminalSafe(
      `${head}: held by ${r.held.by} at ${r.held.at}${r.held.reason ? ` (${r.held.reason})` : ''}`,
    );
  return terminalSafe(`${head}: ${r.state}, approved by ${r.approved_by} at ${r.approved_at ?? '?'}`);
}

const describeCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
