import type { Command } from 'commander';
import type { LedgerRun } from '../../jobs/ledger.js';
import { type OpenReport, SHOWN_STATES } from '../../jobs/report-index.js';
import { currentPhase } from '../../jobs/run-phase.js';
import type { FailedRun, StatusReport } from '../../jobs/status.js';
import { type CliIo, configOption, exitWith, type ProgramState } from './program-state.js';
import { withoutAccount } from './run-once.js';

export function registerStatus(program: Command, state: ProgramState, io: CliIo): void {
  program
    .command('status')
    .summary('runs per account and queue counts, from Redis')
    .description(
      'Per account: the last successful run, runs queued or running (with progress), recent failed or ' +
        'partial runs with their reasons, the next nightly run, and the request budget in use. Then the ' +
        'queue counts. Reads Redis (no worker needs to run), and the manifests of failed or partial runs ' +
        'for their reasons.',
    )
    .option('--json', 'print JSON for scripts')
    .action(
      exitWith(state, async (flags: { json?: boolean }, cmd: Command) => {
        const [
          { withJobsClient },
          { readStatus },
          { loadConfigWithoutKeys },
          { storeWhenNeeded },
          { runProblems },
        ] = await Promise.all([
          import('../../jobs/client.js'),
          import('../../jobs/status.js'),
          import('../config/load.js'),
          import('../sinks/create-store.js'),
          import('./run-problems.js'),
        ]);
        const config = loadConfigWithoutKeys(configOption(cmd));
        // Opened at the first failed or partial run only (with sinks.s3 that loads the AWS SDK).
        const store = storeWhenNeeded(config.sinks);
        // Grouped under its account already: each reason without the account in front.
        const reasonsOf = async (r: LedgerRun) =>
          (await runProblems(store, r)).map((l) => withoutAccount(r.account, l));
        const report = await withJobsClient(config, 'visync status', (client) =>
          readStatus({ ...client, config, reasonsOf }),
        );
        if (flags.json) io.out(JSON.stringify(report, null, 2));
        else for (const line of renderStatus(report)) io.out(line);
        return 0;
      }),
    );
}

function describeRun(r: LedgerRun): string {
  const failed = r.workspaces_failed ? ` (${r.workspaces_failed} failed)` : '';
  const progress =
    r.workspaces_total !== undefined ? ` ${r.workspaces_done}/${r.workspaces_total} workspaces${failed}` : '';
  const window = r.visibility_days ? ` ${r.visibility_days}d` : '';
  const phase = currentPhase(r)?.phase;
  const waits = phase ? `, ${phase}` : '';
  return `${r.run_id} (${r.kind}${window}, ${r.status}${progress}${waits}, ${r.calls} requests)`;
}

/** The first few reasons; the manifest has them all. */
function describeReasons(r: FailedRun): string {
  const shown = r.reasons.slice(0, MAX_REASONS);
  if (!shown.length) return '';
  const more = r.reasons.length - shown.length;
  return `: ${shown.join('; ')}${more > 0 ? `; and ${more} more (manifest ${r.manifest_key})` : ''}`;
}

const MAX_REASONS = 3;

export function renderStatus(report: StatusReport): string[] {
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
    for (const r of a.failed) lines.push(`  ${r.status}: ${describeRun(r)}${describeReasons(r)}`);
    const paused =
      a.budget.paused_for_ms > 0
        ? `, paused for ${Math.ceil(a.budget.paused_for_ms / 1000)} s (Retry-After)`
        : '';
    lines.push(`  budget: ${a.budget.in_window}/${a.budget.limit} requests in the current window${paused}`);
    const reports = describeReports(a.reports ?? []);
    if (reports) lines.push(`  reports: ${reports}`);
  }
  lines.push(`queue: ${describeCounts(report.queue)}`);
  const batches = report.load_batches;
  lines.push(
    // The load queue holds the runs' finish jobs as well as the batches: its counts say so.
    `load batches: ${batches.runs_waiting} ${batches.runs_waiting === 1 ? 'run' : 'runs'} awaiting a batch; queue ${batches.queue_name} (runs finishing and load batches): ${describeCounts(batches.queue)}`,
  );
  return lines;
}

/** `1 stale (2026-10), 2 draft (2026-10, 2026-W44)`: counts per state and their periods. */
function describeReports(open: readonly OpenReport[]): string {
  const parts: string[] = [];
  for (const state of SHOWN_STATES) {
    const of = open.filter((r) => r.state === state);
    if (of.length)
      parts.push(`${of.length} ${state} (${[...new Set(of.map((r) => r.period))].sort().join(', ')})`);
  }
  const hint = open.some((r) => r.state === 'draft') ? '; visync report send delivers the drafts' : '';
  return parts.length ? `${parts.join(', ')}${hint}` : '';
}

const describeCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
