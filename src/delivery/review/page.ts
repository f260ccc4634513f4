// The review page's HTML (jobs/review-page.ts serves it): one table of the period's reports per
// account, each with its headline figure, to date or final, who held or approved it, a preview
// link and its forms. Every value shown is escaped (client names and ids come from the API and
// the config); the page has no script and loads nothing from elsewhere. Its words are English:
// it is the agency's tool, not the client's (the preview is the report in its own locale).
import type { DeliveryOutcome } from '../scheduled/types.js';
import type { ReviewRow } from './rows.js';

/** Text for HTML content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

export interface PageInput {
  rows: ReviewRow[];
  /** The CSRF token every form carries. */
  token: string;
  /** worker.ui.readOnly: listed, no actions. */
  readOnly: boolean;
  /** Who acts (the basic-auth user, or `local`). */
  user: string;
  /** What the last action came to, one line each. */
  notices?: string[];
}

const h = escapeHtml;

function headlineText(r: ReviewRow): string {
  const x = r.headline;
  if (!x) return r.problem ? `unreadable: ${r.problem}` : 'not read';
  if (x.score === null) return 'no score in the period (no day has one)';
  const score = x.score.toFixed(1);
  if (x.delta !== null) return `${score} (${x.delta >= 0 ? '+' : '−'}${Math.abs(x.delta).toFixed(1)})`;
  return `${score} (${x.earlier ? 'not comparable with the previous period' : 'first period, nothing to compare'})`;
}

/** `2026-11-02 09:00 UTC` of an ISO time (the records keep the whole ISO time). */
export function shownTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso;
}

function stateText(r: ReviewRow): string {
  if (r.held)
    return `held by ${r.held.by} at ${shownTime(r.held.at)}${r.held.reason ? `: ${r.held.reason}` : ''}`;
  const at = r.approvedAt ? shownTime(r.approvedAt) : '?';
  const approved = r.approvedBy ? `, approved by ${r.approvedBy} at ${at}` : '';
  return `${r.state}${approved}`;
}

function hidden(r: ReviewRow, token: string): string {
  return [
    `<input type="hidden" name="token" value="${h(token)}">`,
    `<input type="hidden" name="account" value="${h(r.account)}">`,
    `<input type="hidden" name="brand" value="${h(r.brandId)}">`,
    `<input type="hidden" name="period" value="${h(r.period)}">`,
  ].join('');
}

export function previewHref(r: Pick<ReviewRow, 'account' | 'brandId' | 'period'>): string {
  const q = new URLSearchParams({ account: r.account, brand: r.brandId, period: r.period });
  return `/review/preview?${q.toString()}`;
}

function rowHtml(r: ReviewRow, o: PageInput): string {
  const sendable = !r.problem && r.state !== 'sent';
  const sent = r.addresses.filter((a) => a.sent).length;
  const actions =
    o.readOnly || !sendable
      ? ''
      : `<form method="post" action="/review/approve">${hidden(r, o.token)}<button type="submit" data-action="approve">Approve and send</button></form>` +
        (r.held
          ? ''
          : `<form method="post" action="/review/hold">${hidden(r, o.token)}<input name="reason" maxlength="200" placeholder="reason (optional)" aria-label="reason"><button type="submit" data-action="hold">Hold</button></form>`);
  const preview = r.hasHtml
    ? `<a href="${h(previewHref(r))}" target="_blank" rel="noopener">Preview</a>`
    : '';
  return `<tr data-brand="${h(r.brandId)}">
<td class="client"><span class="name">${h(r.clientName)}</span><div class="id">${h(r.brandId)}</div></td>
<td class="nowrap">${h(r.period)}</td>
<td>${r.toDate ? `to date${r.through ? ` through ${h(r.through)}` : ''}` : 'final'}</td>
<td class="num">${h(headlineText(r))}</td>
<td>${sent}/${r.addresses.length} sent${r.addresses.map((a) => `<div class="id nowrap">${h(a.role === 'to' ? a.address : `${a.address} (${a.role})`)}${a.sent ? ' ✓' : ''}</div>`).join('')}</td>
<td class="state">${h(stateText(r))}</td>
<td>${preview}</td>
<td class="actions">${actions}</td>
</tr>`;
}

export function reviewPage(o: PageInput): string {
  const accounts = [...new Set(o.rows.map((r) => r.account))];
  const tables = accounts.map((account) => {
    const rows = o.rows.filter((r) => r.account === account);
    return `<h2>${h(account)}</h2>
<table><thead><tr><th>Client</th><th>Period</th><th>Report</th><th>Headline (overall score, change)</th><th>Addresses</th><th>State</th><th>Preview</th><th>Actions</th></tr></thead>
<tbody>${rows.map((r) => rowHtml(r, o)).join('\n')}</tbody></table>`;
  });
  const open = o.rows.filter((r) => !r.problem && !r.held && r.state !== 'sent');
  const sendAll =
    o.readOnly || !open.length
      ? ''
      : `<form method="post" action="/review/send-all"><input type="hidden" name="token" value="${h(o.token)}"><button type="submit" data-action="send-all">Send all ${open.length} not held</button></form>`;
  const notices = o.notices?.length
    ? `<ul class="notices">${o.notices.map((n) => `<li>${h(n)}</li>`).join('')}</ul>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>visync: review</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:24px}
th,td{border-bottom:1px solid #ddd;padding:6px 8px;text-align:left;vertical-align:top;font-size:14px}
th{background:#f4f4f4}
.id{color:#777;font-size:12px;overflow-wrap:anywhere}
.nowrap{white-space:nowrap}
.num{font-variant-numeric:tabular-nums}
.actions form{display:inline-block;margin:0 4px 4px 0}
.notices{background:#eef6ee;border:1px solid #9c9;padding:8px 24px}
.note{color:#555}
</style></head>
<body>
<h1>Reports to review</h1>
<p class="note">Signed in as ${h(o.user)}.${o.readOnly ? ' Read-only (worker.ui.readOnly, true by default): the reports are listed, nothing can be held or sent here; set worker.ui.readOnly: false to act on them.' : ' Approve and send mails each address once, as visync report send does; a held report is not mailed by the schedule, by send all or by visync report send until it is approved here or sent with visync report send --brand.'}</p>
${notices}
${sendAll}
${tables.length ? tables.join('\n') : '<p>No drafts to review: the drafts of review: true reports appear here once the worker made them.</p>'}
</body></html>
`;
}

/** One line per address (or why none) of what an action came to. */
export function outcomeLines(
  account: string,
  outcomes: readonly DeliveryOutcome[],
  /** The client's name of a workspace (names, not ids, where a person reads). */
  nameOf: (brandId: string) => string,
): string[] {
  const lines: string[] = [];
  for (const w of outcomes) {
    const head = `${account}, ${nameOf(w.brandId)} (${w.brandId}), ${w.period}`;
    if (w.held)
      lines.push(
        `${head}: held by ${w.held.by} at ${shownTime(w.held.at)}${w.held.reason ? ` (${w.held.reason})` : ''}`,
      );
    else if (!w.recipients.length) lines.push(`${head}: ${w.reason ?? w.state}`);
    for (const x of w.recipients)
      lines.push(
        `${head} ${x.recipient}${x.role ? ` (${x.role})` : ''}: ${x.result}${x.reason ? `: ${x.reason}` : ''}`,
      );
    if (w.recordFailure) lines.push(`${head}: ${w.recordFailure}`);
  }
  return lines;
}
