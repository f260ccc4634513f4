import { type Command, InvalidArgumentError } from 'commander';
import { storedText } from '../records/error-code.js';
import type { Manifest } from '../records/manifest.js';
import { manifestKey } from '../sinks/layout.js';
import { formatDuration } from './duration.js';
import { type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';
import { registerRunsShow } from './runs-show.js';

interface RunsFlags {
  account?: string;
  limit: number;
  json?: boolean;
}

const DEFAULT_LIMIT = 20;
const REASON_WIDTH = 80;

export function registerRuns(program: Command, state: ProgramState, io: CommandIo): void {
  const runs = program
    .command('runs')
    .summary('run history from the manifests in the object store (no Redis needed)')
    .description(
      'Lists past runs, newest first: run id, account, kind, status, start, duration, workspaces that ' +
        'succeeded of those found, requests, and why a run failed or was partial (shortened; --json has ' +
        'it whole, with every failed workspace and table). Reads the manifest each run writes last, so it ' +
        'shows runs of workers and of run --once alike, and works without Redis. `visync runs show RUN_ID` ' +
        'prints one run whole.',
    )
    .option('--account <name>', 'only this account')
    .option('--limit <n>', 'at most this many runs', parseLimit, DEFAULT_LIMIT)
    .option('--json', 'print JSON for scripts')
    .action(exitWith(state, (flags: RunsFlags, cmd: Command) => runsCommand(flags, cmd, io)));
  registerRunsShow(runs, state, io);
  for (const c of runs.commands) c.exitOverride();
}

/** `visync runs`: run history from the manifests in the object store. */
async function runsCommand(flags: RunsFlags, cmd: Command, io: CommandIo): Promise<number> {
  const [{ readConfigWithoutKeys }, { listRuns, newestFirst }, { ObjectStores }] = await Promise.all([
    import('../config/read-config.js'),
    import('../records/list-runs.js'),
    import('../sinks/create-store.js'),
  ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  const stores = new ObjectStores();
  try {
    const accounts = flags.account ? [flags.account] : config.accounts.map((a) => a.name);
    // Accounts may write to stores of their own (an s3 prefix or fs folder per client).
    const groups = await stores.grouped(config, accounts);
    const histories = await Promise.all(
      groups.map((g) => listRuns(g.store, { accounts: g.accounts, limit: flags.limit })),
    );
    for (const u of histories.flatMap((h) => h.unreadable))
      io.err(`visync: warning: cannot read ${u.key}: ${u.reason}`);
    const rows = histories
      .flatMap((h) => h.manifests)
      .sort((a, b) => newestFirst(a, b))
      .slice(0, flags.limit)
      .map(runRow);
    if (flags.json) io.verbatim(JSON.stringify(rows, null, 2));
    else if (rows.length === 0) {
      const where = groups.map((g) => `${g.store.location.replace(/\/$/, '')}/runs/`).join(', ');
      io.out(`no runs yet: no manifest under ${where}`);
    } else for (const line of renderRuns(rows)) io.out(line);
    return 0;
  } finally {
    await stores.close();
  }
}

export interface RunRow {
  run_id: string;
  account: string;
  kind: string;
  status: string;
  started_at: string;
  finished_at: string;
  duration_seconds: number;
  workspaces: { succeeded: number; total: number };
  requests: number;
  /** Why the run failed or was partial, in one line; absent for a succeeded run. */
  reason?: string;
  failed_workspaces: { brand_id: string; error: string }[];
  failed_tables: { table: string; error: string }[];
  manifest: string;
}

export function runRow(m: Manifest): RunRow {
  const failedWorkspaces = m.workspaces
    .filter((w) => w.status === 'failed')
    .map((w) => ({ brand_id: w.brand_id, error: w.error ?? 'failed' }));
  const failedTables = m.loads
    .filter((l) => l.status === 'failed')
    .map((l) => ({ table: l.table, error: l.error ?? 'failed' }));
  const unprefixed = (text: string) => storedText(m.account, text);
  const reasons = [
    ...(m.error ? [unprefixed(m.error)] : []),
    ...summarise(
      failedWorkspaces.map((w) => `${w.brand_id}: ${unprefixed(w.error)}`),
      'workspace',
    ),
    ...summarise(
      failedTables.map((t) => `${t.table}: ${unprefixed(t.error)}`),
      'table',
    ),
  ];
  return {
    run_id: m.run_id,
    account: m.account,
    kind: m.kind,
    status: m.status,
    started_at: m.started_at,
    finished_at: m.finished_at,
    duration_seconds: (Date.parse(m.finished_at) - Date.parse(m.started_at)) / 1000,
    workspaces: {
      succeeded: m.workspaces.filter((w) => w.status === 'succeeded').length,
      total: m.workspaces.length,
    },
    requests: m.requests.calls,
    reason: reasons.length > 0 ? reasons.join('; ') : undefined,
    failed_workspaces: failedWorkspaces,
    failed_tables: failedTables,
    manifest: manifestKey(m.account, m.run_id),
  };
}

/** How many failed, first (it survives shortening), then the first failure in full. */
function summarise(failures: string[], what: string): string[] {
  if (failures.length === 0) return [];
  return [`${failures.length} ${what}${failures.length === 1 ? '' : 's'} failed, ${failures[0]}`];
}

function renderRuns(rows: RunRow[]): string[] {
  const table = [
    ['RUN ID', 'ACCOUNT', 'KIND', 'STATUS', 'STARTED', 'DURATION', 'WORKSPACES', 'REQUESTS', 'REASON'],
    ...rows.map((r) => [
      r.run_id,
      r.account,
      r.kind,
      r.status,
      r.started_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      formatDuration(r.duration_seconds),
      `${r.workspaces.succeeded}/${r.workspaces.total}`,
      String(r.requests),
      shorten(r.reason ?? '', REASON_WIDTH),
    ]),
  ];
  const widths = table[0]!.map((_, col) => Math.max(...table.map((cells) => cells[col]!.length)));
  return table.map((cells) =>
    cells
      .map((c, col) => (col === cells.length - 1 ? c : c.padEnd(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
}

function shorten(text: string, width: number): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length <= width ? one : `${one.slice(0, width - 3)}...`;
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) {
    throw new InvalidArgumentError('expected a whole number from 1 to 10000');
  }
  return n;
}
