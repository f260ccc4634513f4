// The lines a run prints, shared by run, enqueue, status and replay: the run in one line
// (summaryLine; resultLine and progressLine for a queued run; replayedLine) and one line per thing
// that went wrong (problemsOf, lineOf).
import type { LedgerRun } from '../../jobs/ledger.js';
import { storedText } from '../records/error-code.js';
import { failedLoadsByReason } from '../records/failed-loads.js';
import type { Manifest } from '../records/manifest.js';
import { workspaceListIncomplete } from '../records/manifest.js';
import { shortenedMiddle } from '../util/text.js';

/** A failed load's reason in a line: BigQuery's own can run to several hundred characters. */
const LOAD_ERROR_MAX = 400;

/** One thing that went wrong with a run, its account apart: `lineOf` prints them. */
export interface Problem {
  account: string;
  /** What the line is about: the run's own error, a cut-short list, a workspace, a load, the manifest. */
  of: 'run' | 'list' | 'workspace' | 'load' | 'manifest';
  text: string;
}

/** A problem as printed: the account in front, once. */
export function lineOf(p: Problem): string {
  return `${p.account}: ${p.text}`;
}

/**
 * One problem per thing that went wrong: the account's stop reason, a workspace list cut short, each
 * failed workspace, and the failed loads, one per distinct reason naming its tables (a warehouse that
 * is down fails every table alike). Which workspaces the account's stop cut short is told by their
 * error code (src/runs/error-code.ts), never by their text.
 */
export function problemsOf(m: Manifest): Problem[] {
  const { account } = m;
  const out: Problem[] = [];
  if (m.error) out.push({ account, of: 'run', text: storedText(account, m.error) });
  const listShort = workspaceListIncomplete(m);
  if (listShort && m.status !== 'succeeded') out.push({ account, of: 'list', text: listShort });
  const stop = m.error && storedText(account, m.error);
  for (const w of m.workspaces) {
    // Workspaces cut short by the account's stop say nothing the line above does not: told by their
    // code, or (recorded without one) by being the stop's own stored failure.
    const cutShort =
      w.error_code === 'not_completed' || (w.error !== undefined && storedText(account, w.error) === stop);
    if (w.status === 'failed' && !(stop && cutShort))
      out.push({
        account,
        of: 'workspace',
        text: `workspace ${w.brand_id} failed: ${w.error ? storedText(account, w.error) : 'no reason recorded'}`,
      });
  }
  for (const [reason, tables] of failedLoadsByReason(m.loads)) {
    const which =
      tables.length === 1
        ? `load of ${tables[0]} failed`
        : `loads failed for ${tables.length} tables (${tables.join(', ')})`;
    out.push({ account, of: 'load', text: `${which}: ${shortenedMiddle(reason, LOAD_ERROR_MAX)}` });
  }
  return out;
}

/** One line per thing that went wrong (problemsOf), each starting with the account. */
export function problemLines(m: Manifest): string[] {
  return problemsOf(m).map(lineOf);
}

/**
 * The run in one line, the account named once. `lead` goes before the status (`completed
 * interrupted run: `); a manifest that could not be written (`manifestAt` undefined, or a
 * `run not recorded` error) is not named as if it were there.
 */
export function summaryLine(m: Manifest, manifestAt: string | undefined, lead = ''): string {
  const ok = m.workspaces.filter((w) => w.status === 'succeeded').length;
  return [
    `${m.account}: ${lead}${m.status}`,
    `run ${m.run_id}`,
    `${ok}/${m.workspaces.length} workspaces`,
    `${m.requests.calls} requests (${m.requests.rate_limited} rate-limited, ${m.requests.retries} retries)`,
    `${m.files.length} files`,
    manifestAt === undefined || m.error_code === 'not_recorded'
      ? 'manifest not written'
      : `manifest ${manifestAt}`,
  ].join(' | ');
}

/** A queued run's progress in one line (`enqueue --wait` on stderr). */
export function progressLine(r: LedgerRun): string {
  const total = r.workspaces_total;
  const width = 20;
  const filled = total ? Math.round((r.workspaces_done / total) * width) : 0;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  const ws = total === undefined ? 'discovering workspaces' : `${r.workspaces_done}/${total} workspaces`;
  const failed = r.workspaces_failed ? ` (${r.workspaces_failed} failed)` : '';
  return `${r.account} ${bar} ${ws}${failed} | ${r.calls} requests | ${r.rate_limited} rate-limited | waited ${Math.round(r.waited_ms / 1000)} s | ${r.status}`;
}

/**
 * Whether the run's result line says `p` already: the run's own error when the ledger stores that
 * same error (a problem's kind and the stored record decide, not what its text ends with).
 */
export function shownInResultLine(r: LedgerRun, p: Problem): boolean {
  return p.of === 'run' && r.error !== undefined && storedText(r.account, r.error) === p.text;
}

/** A queued run in one line, the account named once (an older ledger error starts with it too). */
export function resultLine(r: LedgerRun): string {
  const error = r.error ? `: ${storedText(r.account, r.error)}` : '';
  return `${r.account}: ${r.run_id} ${r.status}${error}${r.manifest_key ? ` | manifest ${r.manifest_key}` : ''}`;
}

/** A replayed run in one line: its status, curated files and loads, the failed loads named. */
export function replayedLine(m: Manifest): string {
  const failed = m.loads.filter((l) => l.status === 'failed');
  return `${m.account}: replayed run ${m.run_id}: ${m.status} | ${m.files.filter((f) => f.key.startsWith('tables/')).length} curated files | ${m.loads.length} loads${failed.length ? ` (${failed.length} failed: ${failed.map((l) => l.table).join(', ')})` : ''}`;
}
