import { type Command, InvalidArgumentError } from 'commander';
import type { JobsClient } from '../../jobs/jobs-client.js';
import type { LedgerRun, RunLedger } from '../../jobs/ledger.js';
import { WORKSPACE_ENDPOINTS, type WorkspaceEndpoint } from '../api/endpoints.js';
import { storedCode } from '../records/error-code.js';
import type { Manifest } from '../records/manifest.js';
import { combineRunStatuses, exitCodeFor, isFinishedStatus } from '../records/run-state.js';
import { errorMessage } from '../util/errors.js';
import { terminalSafe } from '../util/terminal.js';
import { sleep } from '../util/time.js';
import { collect, parseDays, parseEndpoints } from './options.js';
import {
  CliError,
  type CliIo,
  type CommandIo,
  configOption,
  exitWith,
  type ProgramState,
} from './program-state.js';
import { lineOf, type Problem, progressLine, resultLine, shownInResultLine } from './run-lines.js';

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
    { loadConfigWithoutKeys },
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
  const config = loadConfigWithoutKeys(configOption(cmd));
  // Before any is enqueued: an unknown name is a usage error, and no other account's run starts.
  const accounts = chosenAccounts(config, flags.account).map((a) => a.name);
  const since = new Date();
  const stores = new ObjectStores();
  try {
    return await withJobsClient(config, 'visync enqueue', async (client) => {
      const runIds: string[] = [];
      const accountOf = new Map<string, string>();
      const enqueued: EnqueuedJson[] = [];
      for (const account of accounts) {
        const r = await enqueueRun(client.queues, client.ledger, config, {
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
      // The account's own store, opened at its first failed or partial run only.
      const problems = new Map<string, Problem[]>();
      for (const r of runs) {
        problems.set(r.run_id, await runProblems(() => stores.forAccount(config, r.account), r));
        for (const p of problems.get(r.run_id) ?? [])
          if (!shownInResultLine(r, p)) io.err(`visync: ${lineOf(p)}`);
      }
      // Combined as run --once combines its accounts, so both exit alike for the same outcome.
      const status = combineRunStatuses(runs.map((r) => r.status).filter(isFinishedStatus));
      if (!json) return exitCodeFor(status);
      return json.print(
        {
          finished: true,
          status,
          results: runs.map((r) => ({
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
          })),
        },
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

/** A workspace id as one word of a POSIX shell command line. */
const shellWord = (w: string) => (/^[\w.,:/@+-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`);

/** The command that enqueues the account's run again: the flags that make its run id, no other. */
function enqueueCommand(kind: string, account: string, flags: EnqueueFlags): string {
  return [
    `visync enqueue ${kind} --account ${account}`,
    ...(flags.brand ?? []).map((b) => `--brand ${shellWord(b)}`),
    ...(flags.days !== undefined ? [`--days ${flags.days}`] : []),
    ...(flags.endpoints?.length ? [`--endpoints ${flags.endpoints.join(',')}`] : []),
  ].join(' ');
}

/** Accounts whose queue no worker listens on now (BullMQ names each worker's Redis connection). */
async function accountsWithoutWorker(
  client: Pick<JobsClient, 'queues'>,
  accounts: string[],
): Promise<string[]> {
  const counts = await Promise.all(accounts.map((a) => client.queues.for(a).getWorkersCount()));
  return accounts.filter((_, i) => counts[i] === 0);
}

export interface WaitOptions {
  /** Give up after this many seconds (the runs go on). */
  timeoutS?: number;
  /** When to look once for a worker on each waited account's queue. */
  noWorkerAfterMs?: number;
  /** For a waited run the ledger no longer has (Redis lost its data): see LostRuns. */
  lost?: LostRuns;
  /** When the wait began (before the enqueue): a manifest that ended earlier is of an earlier try. */
  since?: Date;
}

/** Where a run Redis lost is looked for, and what to tell when it is gone for good. */
export interface LostRuns {
  /** The run's manifest, if it has one (it ended before Redis lost it). */
  manifest(runId: string): Promise<Manifest | undefined>;
  /** The command that enqueues the run again. */
  enqueueAgain(runId: string): string;
}

/** Shows the runs' progress until they end; resolves undefined on timeout. */
export async function waitForRuns(
  client: Pick<JobsClient, 'ledger' | 'queues'>,
  runIds: string[],
  io: CliIo,
  { timeoutS, noWorkerAfterMs = 10_000, lost, since = new Date() }: WaitOptions = {},
): Promise<LedgerRun[] | undefined> {
  const deadline = timeoutS ? Date.now() + timeoutS * 1000 : Number.POSITIVE_INFINITY;
  const lookForWorkersAt = Date.now() + noWorkerAfterMs;
  let lookedForWorkers = false;
  const progress = new ProgressLines(io, runIds.length);
  for (;;) {
    const found = await Promise.all(runIds.map((id) => client.ledger.get(id)));
    const missing = runIds.filter((_, i) => !found[i]);
    // Missing runs were in the ledger when enqueued: Redis lost them, and no job will bring them back.
    if (missing.length && lost) {
      const gone = await restoreLost(client.ledger, lost, missing, since);
      if (gone.length) {
        progress.end();
        for (const id of gone)
          io.err(
            `visync: run ${id} was lost with Redis's data before it ended (Redis restarted without persistence?); enqueue it again: ${lost.enqueueAgain(id)}`,
          );
        return undefined;
      }
      continue;
    }
    const runs = found.filter((r): r is LedgerRun => !!r);
    if (!lookedForWorkers && Date.now() >= lookForWorkersAt) {
      lookedForWorkers = true;
      progress.notice(await noWorkerNotices(client, runs));
    }
    progress.show(runs);
    if (runs.length === runIds.length && runs.every((r) => isFinishedStatus(r.status))) {
      progress.end();
      for (const r of runs) io.out(resultLine(r));
      return runs;
    }
    if (Date.now() > deadline) {
      io.err(`visync: timed out after ${timeoutS} s; the runs go on in the workers (see visync status)`);
      return undefined;
    }
    await sleep(500);
  }
}

/**
 * Puts back in the ledger each missing run whose manifest shows it ended during the wait (as its
 * finish would have); returns the others, lost for good.
 */
async function restoreLost(
  ledger: Pick<RunLedger, 'restore'>,
  lost: LostRuns,
  runIds: string[],
  since: Date,
): Promise<string[]> {
  const gone: string[] = [];
  for (const id of runIds) {
    const m = await lost.manifest(id);
    if (m && Date.parse(m.finished_at) >= since.getTime()) await ledger.restore(m);
    else gone.push(id);
  }
  return gone;
}

/**
 * One line per account of an unfinished run whose queue no worker listens on, in the user's words:
 * the account, its runs and the command to start (the queue's name is an internal shard).
 */
async function noWorkerNotices(client: Pick<JobsClient, 'queues'>, runs: LedgerRun[]): Promise<string[]> {
  const waiting = runs.filter((r) => !isFinishedStatus(r.status));
  const idle = await accountsWithoutWorker(client, [...new Set(waiting.map((r) => r.account))]);
  return idle.map((account) => {
    const ids = waiting.filter((r) => r.account === account).map((r) => r.run_id);
    return `visync: no worker is taking account ${account}'s runs (${ids.join(', ')}) yet; start one with visync worker, with the same redis.url and redis.prefix as this config`;
  });
}

/** Progress on stderr: one line redrawn in place for a single run on a terminal, else a line per change. */
class ProgressLines {
  readonly #io: CliIo;
  readonly #inPlace: boolean;
  readonly #last = new Map<string, string>();

  constructor(io: CliIo, runs: number) {
    this.#io = io;
    this.#inPlace = !!process.stderr.isTTY && runs === 1;
  }

  show(runs: LedgerRun[]): void {
    for (const r of runs) {
      const line = progressLine(r);
      if (this.#last.get(r.run_id) === line) continue;
      this.#last.set(r.run_id, line);
      if (this.#inPlace) process.stderr.write(`\r${terminalSafe(line)}\x1b[K`);
      else this.#io.err(line);
    }
  }

  /** Lines of their own; the progress line is drawn again below them. */
  notice(lines: string[]): void {
    if (!lines.length) return;
    if (this.#inPlace) process.stderr.write('\n');
    for (const line of lines) this.#io.err(line);
    this.#last.clear();
  }

  end(): void {
    if (this.#inPlace) process.stderr.write('\n');
  }
}
