// `run --once --plan` output: per account, the window, the workspaces, a table of the calls and the
// least time the rate limit allows for them.
import type { AccountPlan, PlannedCall, RunPlan } from '../run/plan-run.js';
import { formatDuration } from './duration.js';

function callText(c: PlannedCall): string {
  const query = new URLSearchParams(c.query).toString();
  return `GET ${c.path}${query ? `?${query}` : ''}`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) =>
    r
      .map((cell, col) => (col === r.length - 1 ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!)))
      .join('  '),
  );
}

function accountLines(p: AccountPlan): string[] {
  const n = p.workspaces.count;
  const w = p.window;
  const limit = `${p.rate_limit.requests} requests per ${p.rate_limit.window_seconds} s (${
    p.rate_limit.source === 'config' ? 'configured requestsPerMinute' : 'default, until GET /me tells'
  })`;
  const rows = [
    ['CALL', 'FOR', 'COUNT'],
    ...p.account_calls.map((c) => [callText(c), 'account', '1']),
    ...p.workspace_calls.map((c) => [callText(c), 'each workspace', n === undefined ? '?' : String(n)]),
  ];
  const time =
    p.total_requests === undefined || p.min_seconds === undefined
      ? `total: ${p.account_calls.length} + ${p.workspace_calls.length} per workspace; workspace count unknown, so no time estimate`
      : `total: ${p.total_requests} requests; at least ${p.min_seconds === 0 ? '0s' : formatDuration(p.min_seconds)} at ${p.rate_limit.requests} per ${p.rate_limit.window_seconds} s (floor((${p.total_requests}-1)/${p.rate_limit.requests}) windows of ${p.rate_limit.window_seconds} s; retries add to it)`;
  return [
    `${p.account}: run date ${p.run_date}`,
    `  window: ${w.visibility_days} days, ${w.from} to ${w.to} (${w.why})`,
    `  buyer intent: ${p.buyer_intent_days.join(', ')} days; endpoints: ${p.endpoints.join(', ')}`,
    `  workspaces: ${n ?? 'unknown'} (${p.workspaces.source})`,
    `  rate limit: ${limit}`,
    ...table(rows).map((l) => `  ${l}`),
    `  ${time}`,
    ...p.notes.map((note) => `  note: ${note}`),
  ];
}

export function renderPlan(plan: RunPlan): string[] {
  const lines = ['Plan only: no API call was made and nothing was written.'];
  for (const note of plan.notes) lines.push(`note: ${note}`);
  for (const p of plan.accounts) lines.push('', ...accountLines(p));
  return lines;
}
