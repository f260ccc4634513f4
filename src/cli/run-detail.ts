// `visync runs show`: one run as its manifest records it, for people (lines at most one terminal
// width, long upstream errors wrapped whole) and for scripts (--json). What the manifest does not
// record (per-stage times, in manifests written before stages were) is said, not guessed.
import { storedCode, storedText } from '../records/error-code.js';
import type { Manifest } from '../records/manifest.js';
import { STAGE_NAMES } from '../records/run-state.js';
import { clipped, shortened, wrapped } from '../util/text.js';
import { formatDuration } from './duration.js';

/** The JSON document of `runs show --json`: the manifest whole, plus where it is and a few sums. */
export type RunDetail = Manifest & {
  /** Where the manifest is: the store's location and its key. */
  manifest: string;
  duration_seconds: number;
  /** Files by top-level folder (raw, tables, latest): count and bytes. */
  files_by_area: Record<string, { files: number; bytes: number }>;
  /** What the manifest does not record, so scripts do not look for it. */
  not_recorded: string[];
};

/** What a manifest without `stages` (written before they were) does not record. */
const NOT_RECORDED = [
  'per-stage times (extract, curate, load): the manifest records the run start and finish and the time waited on the rate budget',
];

export function runDetail(m: Manifest, manifestAt: string): RunDetail {
  const byArea: Record<string, { files: number; bytes: number }> = {};
  for (const f of m.files) {
    const area = f.key.split('/')[0] ?? '';
    const sum = byArea[area] ?? { files: 0, bytes: 0 };
    byArea[area] = { files: sum.files + 1, bytes: sum.bytes + f.bytes };
  }
  return {
    ...m,
    manifest: manifestAt,
    duration_seconds: (Date.parse(m.finished_at) - Date.parse(m.started_at)) / 1000,
    files_by_area: byArea,
    not_recorded: m.stages ? [] : NOT_RECORDED,
  };
}

const LABEL = 11;
const ERROR_INDENT = '      ';

/** The run in lines of at most `width` characters; errors wrapped below what they belong to. */
export function renderRunDetail(d: RunDetail, width: number): string[] {
  const lines: string[] = [];
  const field = (label: string, value: string) =>
    lines.push(...wrapped(value, width, `  ${`${label}:`.padEnd(LABEL)} `).map(fixIndent(label)));
  lines.push(shortened(`run ${d.run_id} (account ${d.account})`, width));
  field('status', d.status);
  field('kind', d.kind);
  const bi = d.window.buyer_intent_days.length
    ? `; buyer intent ${d.window.buyer_intent_days.join(', ')} days`
    : '';
  field('window', `${d.window.from} to ${d.window.to} (${d.window.visibility_days} days of visibility${bi})`);
  if (d.scope)
    field('scope', `workspaces ${listOrAll(d.scope.brands)}; endpoints ${listOrAll(d.scope.endpoints)}`);
  field('started', d.started_at);
  field('finished', `${d.finished_at} (${formatDuration(d.duration_seconds)})`);
  if (d.replayed_at) field('replayed', d.replayed_at);
  const from = d.requests_from ? ` (counted from the ${d.requests_from})` : '';
  field(
    'requests',
    `${d.requests.calls}${from}: ${d.requests.rate_limited} rate-limited, ${d.requests.retries} retries, waited ${formatDuration(d.requests.waited_ms / 1000)} on the rate budget`,
  );
  const areas = Object.entries(d.files_by_area).map(([a, s]) => `${s.files} ${a}`);
  field(
    'files',
    `${d.files.length}${areas.length ? ` (${areas.join(', ')})` : ''}, ${d.files.reduce((n, f) => n + f.bytes, 0)} bytes`,
  );
  field('manifest', d.manifest);
  // The account is named above: an older manifest's error is shown without it in front.
  if (d.error) field('error', storedText(d.account, d.error));
  const code = storedCode(d);
  if (code) field('code', code);
  if (d.rate_limited_until) field('paused', `the account may be called again after ${d.rate_limited_until}`);
  if (d.interrupted) field('interrupted', d.interrupted);

  const ok = d.workspaces.filter((w) => w.status === 'succeeded').length;
  lines.push(`workspaces: ${ok} of ${d.workspaces.length} succeeded`);
  for (const w of d.workspaces) {
    const why = storedCode(w);
    lines.push(clipped(`  ${w.brand_id}  ${w.status}${why ? `  ${why}` : ''}`, width));
    if (w.error) lines.push(...wrapped(storedText(d.account, w.error), width, ERROR_INDENT));
  }

  const loaded = d.loads.filter((l) => l.status === 'succeeded');
  lines.push(
    `loads: ${loaded.length} of ${d.loads.length} succeeded, ${loaded.reduce((n, l) => n + l.rows, 0)} rows loaded`,
  );
  const tableWidth = Math.max(0, ...d.loads.map((l) => l.table.length));
  const rowsWidth = Math.max(0, ...d.loads.map((l) => String(l.rows).length));
  for (const l of d.loads) {
    const batch = l.load_batch_id ? `  batch ${l.load_batch_id}` : '';
    lines.push(
      clipped(
        `  ${l.table.padEnd(tableWidth)}  ${String(l.rows).padStart(rowsWidth)} rows  ${l.status}${batch}`,
        width,
      ),
    );
    if (l.error) lines.push(...wrapped(l.error, width, ERROR_INDENT));
  }

  lines.push(...stageLines(d, width));

  lines.push(`drift: ${d.drift.length === 0 ? 'none' : `${d.drift.length} findings`}`);
  for (const f of d.drift) {
    const where = f.example ? ` (e.g. ${f.example}${f.count ? `, ${f.count} times` : ''})` : '';
    lines.push(...wrapped(`${f.endpoint} ${f.kind}: ${f.detail}${where}`, width, '  '));
  }
  if (d.not_recorded.length)
    lines.push(
      ...wrapped(`not recorded: ${d.not_recorded.join('; ')}`, width - 2).map((l, i) => (i ? `  ${l}` : l)),
    );
  return lines;
}

/** Each stage the manifest records: its outcome, when it ran and how long; its error below. */
function stageLines(d: RunDetail, width: number): string[] {
  if (!d.stages) return [];
  const lines = ['stages:'];
  for (const name of STAGE_NAMES) {
    const st = d.stages[name];
    if (!st) continue;
    const { started_at: from, finished_at: to } = st;
    // The duration before the times: a narrow terminal clips the times, not how long it took.
    const took = from && to ? formatDuration((Date.parse(to) - Date.parse(from)) / 1000) : '';
    const when = from && to ? `  ${took.padStart(6)}  ${from} to ${to}` : '';
    lines.push(clipped(`  ${name.padEnd(7)}  ${st.outcome.padEnd(9)}${when}`.trimEnd(), width));
    if (st.error) lines.push(...wrapped(st.error, width, ERROR_INDENT));
  }
  return lines;
}

/** The first line carries the label; the lines after it are indented under the value. */
function fixIndent(label: string): (line: string, i: number) => string {
  return (line, i) =>
    i === 0 ? line : line.replace(`  ${`${label}:`.padEnd(LABEL)} `, ' '.repeat(LABEL + 3));
}

function listOrAll(v: 'all' | string[]): string {
  return v === 'all' ? 'all' : v.join(', ');
}
