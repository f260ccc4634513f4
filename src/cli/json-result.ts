// The JSON documents `run --json`, `replay --json` and `enqueue --json` print on stdout (one per
// command, logs and progress on stderr): one shape for a run wherever it ran, and the exit code
// with its meaning, so a script needs neither the text lines nor the exit-code table. Documented in
// docs/cli-json.md.
import { type RunErrorCode, storedCode } from '../records/error-code.js';
import type { Manifest } from '../records/manifest.js';
import type { RunStatus } from '../records/run-state.js';
import { EXIT_CONFIG, EXIT_USAGE } from './exit-codes.js';

export interface RunResult {
  account: string;
  run_id: string;
  kind: string;
  status: RunStatus;
  started_at: string;
  finished_at: string;
  window: Manifest['window'];
  /** Set when the whole account stopped. */
  error?: string;
  error_code?: RunErrorCode | undefined;
  workspaces: Manifest['workspaces'];
  loads: {
    table: string;
    rows: number;
    status: string;
    error?: string;
    error_code?: RunErrorCode | undefined;
  }[];
  files: { count: number; bytes: number };
  requests: Manifest['requests'];
  drift_findings: number;
  /** Where the manifest is; null when it could not be written. */
  manifest: string | null;
  /** One line per problem, as the text output prints them on stderr. */
  problems: string[];
}

export function runResult(m: Manifest, manifestAt: string | null, problems: string[]): RunResult {
  return {
    account: m.account,
    run_id: m.run_id,
    kind: m.kind,
    status: m.status,
    started_at: m.started_at,
    finished_at: m.finished_at,
    window: m.window,
    ...(m.error ? { error: m.error, error_code: storedCode(m) } : {}),
    workspaces: m.workspaces,
    loads: m.loads.map((l) => ({
      table: l.table,
      rows: l.rows,
      status: l.status,
      ...(l.error ? { error: l.error, error_code: storedCode(l) } : {}),
    })),
    files: { count: m.files.length, bytes: m.files.reduce((n, f) => n + f.bytes, 0) },
    requests: m.requests,
    drift_findings: m.drift.length,
    manifest: manifestAt,
    problems,
  };
}

const MEANINGS: Record<number, string> = {
  0: 'succeeded',
  2: 'partial: some workspaces or table loads failed, the rest landed',
  1: 'failed',
  [EXIT_USAGE]: 'usage error',
  [EXIT_CONFIG]: 'config error',
};

/** The exit code the command ends with, and what it means (src/cli/exit-codes.ts). */
export function exitFields(code: number): { exit_code: number; exit_meaning: string } {
  return { exit_code: code, exit_meaning: MEANINGS[code] ?? 'failed' };
}

/**
 * What a command refused under --json prints (docs/cli-json.md): the line it printed on stderr
 * (without `visync: `), and the exit code with its meaning.
 */
export function refusalResult(
  line: string,
  code: number,
): { error: string; exit_code: number; exit_meaning: string } {
  return { error: line, ...exitFields(code) };
}
