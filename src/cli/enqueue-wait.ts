// `visync enqueue --wait`: the enqueued runs' progress shown until they end, a run Redis lost
// looked for in the sink, and a notice for an account no worker listens on.
import type { JobsClient } from '../../jobs/jobs-client.js';
import type { LedgerRun, RunLedger } from '../../jobs/ledger.js';
import type { Manifest } from '../records/manifest.js';
import { isFinishedStatus } from '../records/run-state.js';
import { terminalSafe } from '../util/terminal.js';
import { sleep } from '../util/time.js';
import type { CliIo } from './program-state.js';
import { progressLine, resultLine } from './run-lines.js';

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
