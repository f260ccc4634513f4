import { type Command, InvalidArgumentError } from 'commander';
import type { EnqueueRequest, EnqueueResult } from '../../jobs/enqueue.js';
import type { LedgerRun } from '../../jobs/ledger.js';
import { WORKSPACE_ENDPOINTS, type WorkspaceEndpoint } from '../api/endpoints.js';
import { storedCode } from '../records/error-code.js';
import { combineRunStatuses, exitCodeFor, isFinishedStatus } from '../records/run-state.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { shellWord } from '../util/shell-word.js';
import { type LostRuns, waitForRuns } from './enqueue-wait.js';
import { collect, parseDays, parseEndpoints } from './options.js';
import { CliError, type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';
import { lineOf, type Problem, shownInResultLine } from './run-lines.js';
import type { runProblems as RunProblems } from './run-problems.js';

interface EnqueueFlags {
  account?: string[];
  brand?: string[];
  days?: number;
  endpoints?: WorkspaceEndpoint[];
  wait?: boolean;
  timeout?: number;
  force?: boolean;
  json?: boolean;
}

export function registerEnqueue(program: Command, state: ProgramState, io: CommandIo): void {
  program
    .command('enqueue')
    .summary('enqueue a sync or a backfill for the workers; print its run id')
    .description(
      'Adds one run per account (all accounts, or those named with --account) to the queue and prints ' +
        'its run id. The id follows from the account, kind, date and parameters, so enqueueing the same ' +
        'run twice runs it once (--force makes a new run). A backfill fetches --days of history (default ' +
        'extract.backfillDays, at most 365) at a lower priority than nightly runs, under the same budget. ' +
        'A sync fetches --days, else every day since the last success, as run --once does. ' +
        '--wait shows progress until the runs end and exits like run --once: 0 when every run succeeded, 1 when ' +
        'every run failed (or on timeout, or when Redis lost a run before it ended: it says how to enqueue it ' +
        'again), else 2 (partial).',
    )
    .argument('<kind>', 'sync or backfill', (v: string) => {
      if (v !== 'sync' && v !== 'backfill') throw new InvalidArgumentError('expected sync or backfill');
      return v;
    })
    .option('--account <name>', 'only this account (repeatable)', collect)
    .option('--brand <id>', 'only this workspace id (repeatable)', collect)
    .option('--days <n>', 'visibility history in days, 1-365', parseDays)
    .option(
      '--endpoints <list>',
      `workspace endpoints, comma-separated (${WORKSPACE_ENDPOINTS.join(',')})`,
      parseEndpoints,
    )
    .option(
      '--wait',
      'show progress until the runs finish; exit code from the result (after 10 s, says so if no worker is connected)',
    )
    .option('--timeout <seconds>', 'with --wait: give up (exit 1) after this long', (v) => Number(v))
    .option('--force', 'enqueue a new run even if the same run exists already')
    .option(
      '--json',
      'print one JSON document on stdout: the runs enqueued and, with --wait, how each ended and the exit code (progress stays on stderr)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  visync enqueue backfill --account acme --days 365 --wait\n  visync enqueue sync --brand brd_123',
    )
    .action(
      exitWith(state, (kind: 'sync' | 'backfill', flags: EnqueueFlags, cmd: Command) =>
        enqueueRuns(kind, flags, cmd, io),
      ),
    );
}

/** `visync enqueue`: adds the runs to the queue, prints their ids, and with --wait their outcome. */
async function enqueueRuns(
  kind: 'sync' | 'backfill',
  flags: EnqueueFlags,
  cmd: Command,
  io: CommandIo,
): Promise<number> {
  const [
    { withJobsClient },
    { RedisUnreachableError },
    { enqueueRun },
    { readConfigWithoutKeys },
    { ObjectStores },
    { runProblems },
    { readManifest },
    { chosenAccounts },
  ] = await Promise.all([
    import('../../jobs/jobs-client.js'),
    import('../../jobs/connection.js'),
    import('../../jobs/enqueue.js'),
    import('../config/read-config.js'),
    import('../sinks/create-store.js'),
    import('./run-problems.js'),
    import('../records/manifest.js'),
    import('./accounts.js'),
  ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  // Before any is enqueued: an unknown name is a usage error, and no other account's run starts.
  const accounts = chosenAccounts(config, flags.account).map((a) => a.name);
  const since = new Date();
  const stores = new ObjectStores();
  try {
    return await withJobsClient(config, 'visync enqueue', async (client) => {
      const { runIds, accountOf, enqueued } = await enqueueEach(
        (request) => enqueueRun(client.queues, client.ledger, config, request),
        kind,
        accounts,
        flags,
        io,
      );
      // With --json the result lines join the progress on stderr: stdout holds the document only.
      const json = flags.json ? await jsonOutput(io, enqueued) : undefined;
      if (!flags.wait) return json ? json.print({ finished: false }, 0) : 0;
      const lost: LostRuns = {
        manifest: async (id) => {
          const account = accountOf.get(id) as string;
          return readManifest(await stores.forAccount(config, account), account, id);
        },
        enqueueAgain: (id) => enqueueCommand(kind, accountOf.get(id) as string, flags),
      };
      const runs = await waitForRuns(client, runIds, json?.io ?? io, {
        timeoutS: flags.timeout,
        lost,
        since,
      });
      if (!runs) return json ? json.print({ finished: false }, 1) : 1;
      // Which workspaces (or loads) failed and why, like run --once says it.
      const problems = await showProblems(
        runs,
        (account) => stores.forAccount(config, account),
        runProblems,
        io,
      );
      // Combined as run --once combines its accounts, so both exit alike for the same outcome.
      const status = combineRunStatuses(runs.map((r) => r.status).filter(isFinishedStatus));
      if (!json) return exitCodeFor(status);
      return json.print(
        { finished: true, status, results: runs.map((r) => runResult(r, problems)) },
        exitCodeFor(status),
      );
    });
  } catch (err) {
    if (err instanceof CliError || err instanceof RedisUnreachableError) throw err;
    throw new CliError(errorMessage(err));
  } finally {
    await stores.close();
  }
}

/** Enqueues the run of each account, saying which were enqueued and which existed already. */
async function enqueueEach(
  enqueue: (request: EnqueueRequest) => Promise<EnqueueResult>,
  kind: 'sync' | 'backfill',
  accounts: readonly string[],
  flags: EnqueueFlags,
  io: CommandIo,
): Promise<{ runIds: string[]; accountOf: Map<string, string>; enqueued: EnqueuedJson[] }> {
  const runIds: string[] = [];
  const accountOf = new Map<string, string>();
  const enqueued: EnqueuedJson[] = [];
  for (const account of accounts) {
    const r = await enqueue({
      kind,
      account,
      brands: flags.brand,
      days: flags.days,
      endpoints: flags.endpoints,
      force: flags.force,
    });
    runIds.push(r.runId);
    accountOf.set(r.runId, account);
    enqueued.push({
      account,
      run_id: r.runId,
      kind,
      enqueued: r.created,
      ...(r.created ? {} : { existing_status: r.existing?.status ?? 'unknown' }),
    });
    if (!flags.json)
      io.out(
        r.created
          ? `${account}: enqueued ${kind} ${r.runId}`
          : `${account}: ${r.runId} exists already (${r.existing?.status ?? 'unknown'}); not enqueued again (use --force for a new run)`,
      );
  }
  return { runIds, accountOf, enqueued };
}

/**
 * The problems of each finished run, those its result line does not show printed on stderr. The
 * account's own store is opened at its first failed or partial run only.
 */
async function showProblems(
  runs: readonly LedgerRun[],
  storeOf: (account: string) => Promise<ObjectStore>,
  problemsOf: typeof RunProblems,
  io: CommandIo,
): Promise<Map<string, Problem[]>> {
  const problems = new Map<string, Problem[]>();
  for (const r of runs) {
    problems.set(r.run_id, await problemsOf(() => storeOf(r.account), r));
    for (const p of problems.get(r.run_id) ?? [])
      if (!shownInResultLine(r, p)) io.err(`visync: ${lineOf(p)}`);
  }
  return problems;
}

/** A finished run as `enqueue --wait --json` lists it. */
function runResult(r: LedgerRun, problems: ReadonlyMap<string, Problem[]>) {
  return {
    account: r.account,
    run_id: r.run_id,
    status: r.status,
    ...(r.error ? { error: r.error, error_code: storedCode(r) } : {}),
    workspaces: {
      done: r.workspaces_done,
      failed: r.workspaces_failed,
      total: r.workspaces_total,
    },
    requests: r.calls,
    manifest: r.manifest_key ?? null,
    problems: (problems.get(r.run_id) ?? []).map(lineOf),
  };
}

interface EnqueuedJson {
  account: string;
  run_id: string;
  kind: string;
  /** false: the same run existed already (its status in existing_status); --force makes a new one. */
  enqueued: boolean;
  existing_status?: string;
}

/** `enqueue --json`: the one document on stdout, and an io that sends every other line to stderr. */
async function jsonOutput(io: CommandIo, runs: EnqueuedJson[]) {
  const { exitFields } = await import('./json-result.js');
  return {
    io: { out: io.err, err: io.err, verbatim: io.err } satisfies CommandIo,
    print(result: Record<string, unknown>, code: number): number {
      io.verbatim(JSON.stringify({ runs, ...result, ...exitFields(code) }, null, 2));
      return code;
    },
  };
}

/** The command that enqueues the account's run again: the flags that make its run id, no other. */
function enqueueCommand(kind: string, account: string, flags: EnqueueFlags): string {
  return [
    `visync enqueue ${kind} --account ${account}`,
    ...(flags.brand ?? []).map((b) => `--brand ${shellWord(b)}`),
    ...(flags.days !== undefined ? [`--days ${flags.days}`] : []),
    ...(flags.endpoints?.length ? [`--endpoints ${flags.endpoints.join(',')}`] : []),
  ].join(' ');
}
