// How a workspace of a run ended, as the manifest records it (`{status, error, error_code}`): the
// one rule of both drivers, `run --once` (src/extract/extract-account.ts) and a worker's workspace
// jobs (src/run/queued/workspace.ts, workspace-results.ts). A workspace succeeds, fails on its
// own (a thrown value, or its failed calls: the first one's class gives the code), or is cut short
// by the run's stop (a revoked key, a pause it would not wait out): then it records the stop's
// message and the code `not_completed`, the run itself records the stop's own code.
import type { RunErrorCode } from '../util/errors.js';
import { errorCode, storedMessage } from './error-code.js';
import type { WorkspaceResult } from './manifest.js';

/** A failure as a run records it, and as job data carries it between processes: message and code. */
export interface Failure {
  error: string;
  error_code: RunErrorCode;
}

/**
 * The failure a caught value records (an AggregateError of a workspace's calls: the first's code),
 * its message without the account in front (the line printer adds it: src/records/error-code.ts).
 */
export function failureOf(err: unknown): Failure {
  return { error: storedMessage(err), error_code: errorCode(err) };
}

/** Why a workspace did not succeed. */
export type WorkspaceEnd =
  /** Its own failure: a thrown value or its failed calls. */
  | { error: unknown }
  /** A failure recorded before, with its code (carried in job data). */
  | { failure: Failure }
  /**
   * The run stopped (`stop`, with its code) before this workspace completed: `attempted` when
   * some of its calls were made (not completed), else none were (not attempted).
   */
  | { halted: Failure; attempted: boolean };

/** The workspace's outcome: succeeded without an end, else failed with a message and a code. */
export function workspaceOutcome(brand_id: string, end?: WorkspaceEnd): WorkspaceResult {
  if (!end) return { brand_id, status: 'succeeded' };
  return { brand_id, status: 'failed', ...endFailure(end) };
}

/** The failure a workspace's end records. */
export function endFailure(end: WorkspaceEnd): Failure {
  if ('failure' in end) return end.failure;
  if ('error' in end) return failureOf(end.error);
  const prefix = end.attempted ? 'not completed' : 'not attempted';
  return { error: `${prefix}: ${end.halted.error}`, error_code: 'not_completed' };
}

/** A failure as older job data stored it (its message only), or with its code. */
export function storedFailure(f: string | Failure): Failure {
  return typeof f === 'string' ? { error: f, error_code: 'unknown' } : f;
}
