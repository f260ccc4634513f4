// What an alert says: a Slack-compatible JSON message when a run ends failed or partial, once when
// an account has had no successful run for `alerts.staleAfterHours`, for scheduled reports one when
// a report is made (`report`) and one when it is stale (`stale`), and one when a mail server stops
// a delivery. Sending it (retried, bounded, scrubbed of secrets) is ./send.ts.
// What Slack shows (`text`, the attachment fields) holds workspace ids from the API and upstream
// error bodies: it is escaped in one place, slackParts, so `<!channel>` or `<https://x|y>` arrive as
// text, never as a mention or a link. The `visync` record keeps the raw values: it is data for
// programs, which escape for their own medium.
import type { AlertsConfig } from '../../config/schema.js';
import { storedText } from '../../records/error-code.js';
import type { Manifest } from '../../records/manifest.js';

export type AlertEvent = AlertsConfig['on'][number];

export interface AlertPayload {
  /** What Slack (and most chat webhooks) show. */
  text: string;
  /** The same facts as fields, for Slack's legacy attachment rendering. */
  attachments: { color: string; fields: { title: string; value: string; short: boolean }[] }[];
  /** The structured record, for receivers that are programs. */
  visync: {
    event: AlertEvent;
    account: string;
    run_id?: string;
    status?: string;
    kind?: string;
    run_date?: string;
    error?: string;
    failed_workspaces: { brand_id: string; error: string }[];
    failed_tables: { table: string; error: string }[];
    last_success_at?: string;
    stale_hours?: number;
    /** A scheduled report's workspace, period and where its files are (src/delivery/scheduled/deliver.ts). */
    brand_id?: string;
    /** The client's name the texts use, beside its id (a report or stale alert). */
    brand_name?: string;
    period?: string;
    location?: string;
    reason?: string;
    /** Brand-watch alerts: the run's events listed, per workspace (src/delivery/digest/events-alert.ts). */
    brand_events?: {
      brand_id: string;
      /** The client's name as the texts give it (src/delivery/digest/display-names.ts). */
      brand_name: string;
      event_type: string;
      key: string;
      severity: string;
      event_id: string;
    }[];
    /** The weekly digest's ranking (`period` is its ISO week; src/delivery/digest/weekly.ts). */
    digest?: {
      brand_id: string;
      brand_name: string;
      score: number;
      events: number;
      counts: Record<string, number>;
    }[];
  };
}

/** Slack's escaping of `&`, `<` and `>`: API text can neither mention (<!channel>) nor link. */
export function slackEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

type Field = AlertPayload['attachments'][number]['fields'][number];

/**
 * The Slack-visible part of an alert: the one place its text and field values are escaped. Builders
 * put API strings in as they are and never write Slack markup of their own (no links, no mentions).
 */
function slackParts(
  text: string,
  color: string,
  fields: Field[],
): Pick<AlertPayload, 'text' | 'attachments'> {
  return {
    text: slackEscape(text),
    attachments: [{ color, fields: fields.map((f) => ({ ...f, value: slackEscape(f.value) })) }],
  };
}

const MAX_LISTED = 10;
const MAX_REASON = 300;

function short(text: string): string {
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}...` : text;
}

function listed<T>(items: T[], line: (t: T) => string): string {
  const shown = items.slice(0, MAX_LISTED).map(line);
  if (items.length > MAX_LISTED) shown.push(`... and ${items.length - MAX_LISTED} more`);
  return shown.join('\n');
}

/** The alert for a run that ended failed or partial; undefined for a run that needs none. */
export function runAlert(m: Manifest, on: readonly AlertEvent[]): AlertPayload | undefined {
  if (m.status === 'succeeded' || !on.includes(m.status)) return undefined;
  const failedWorkspaces = m.workspaces
    .filter((w) => w.status === 'failed')
    .map((w) => ({ brand_id: w.brand_id, error: short(storedText(m.account, w.error ?? 'unknown error')) }));
  const failedTables = m.loads
    .filter((l) => l.status === 'failed')
    .map((l) => ({ table: l.table, error: short(l.error ?? 'unknown error') }));
  const parts = [`visync: run ${m.run_id} of account ${m.account} ended ${m.status}`];
  // The account is named above: an older manifest's error is read without it in front.
  const error = m.error && short(storedText(m.account, m.error));
  if (error) parts.push(error);
  if (failedWorkspaces.length)
    parts.push(`${failedWorkspaces.length} of ${m.workspaces.length} workspaces failed`);
  if (failedTables.length) parts.push(`${failedTables.length} table loads failed`);
  const fields = [
    { title: 'account', value: m.account, short: true },
    { title: 'run', value: m.run_id, short: true },
    { title: 'status', value: m.status, short: true },
    { title: 'kind', value: m.kind, short: true },
  ];
  if (failedWorkspaces.length)
    fields.push({
      title: 'failed workspaces',
      value: listed(failedWorkspaces, (w) => `${w.brand_id}: ${w.error}`),
      short: false,
    });
  if (failedTables.length)
    fields.push({
      title: 'failed loads',
      value: listed(failedTables, (t) => `${t.table}: ${t.error}`),
      short: false,
    });
  return {
    ...slackParts(parts.join('; '), m.status === 'failed' ? 'danger' : 'warning', fields),
    visync: {
      event: m.status,
      account: m.account,
      run_id: m.run_id,
      status: m.status,
      kind: m.kind,
      run_date: m.run_date,
      ...(error ? { error } : {}),
      failed_workspaces: failedWorkspaces,
      failed_tables: failedTables,
    },
  };
}

/** The alert for an account whose last success is older than the threshold (or that never had one). */
export function staleAlert(o: {
  account: string;
  lastSuccessAt: string | undefined;
  now: Date;
  staleAfterHours: number;
}): AlertPayload | undefined {
  const last = o.lastSuccessAt ? Date.parse(o.lastSuccessAt) : undefined;
  const hours = last === undefined ? undefined : (o.now.getTime() - last) / 3_600_000;
  if (hours !== undefined && hours < o.staleAfterHours) return undefined;
  const since =
    hours === undefined ? 'no successful run on record' : `last success ${Math.floor(hours)} h ago`;
  const text = `visync: account ${o.account} is stale: ${since} (threshold ${o.staleAfterHours} h)`;
  return {
    ...slackParts(text, 'warning', [
      { title: 'account', value: o.account, short: true },
      { title: 'last success', value: o.lastSuccessAt ?? 'never', short: true },
    ]),
    visync: {
      event: 'stale',
      account: o.account,
      ...(o.lastSuccessAt ? { last_success_at: o.lastSuccessAt } : {}),
      ...(hours !== undefined ? { stale_hours: Math.floor(hours) } : {}),
      failed_workspaces: [],
      failed_tables: [],
    },
  };
}

/** What a scheduled report's alert says: made (where its files are) or stale (why not made). */
export interface ReportAlertFacts {
  account: string;
  brandId: string;
  /** The client's name (../digest/display-names.ts), for the texts; the id when none is known. */
  clientName?: string;
  period: string;
  location?: string;
  /** Made as a draft, waiting for `visync report send`. */
  draft?: boolean;
  /** Why it is stale. */
  staleReason?: string;
}

/** The `report` alert (made) or the `stale` alert of a report; undefined when `on` wants neither. */
export function reportAlert(f: ReportAlertFacts, on: readonly AlertEvent[]): AlertPayload | undefined {
  const stale = f.staleReason !== undefined;
  if (!on.includes(stale ? 'stale' : 'report')) return undefined;
  const client = f.clientName ?? f.brandId;
  const what = `report of ${client} (account ${f.account}) for ${f.period}`;
  const text = stale
    ? `visync: the ${what} is stale, not made and not sent: ${short(f.staleReason ?? '')}`
    : `visync: the ${what} is ${f.draft ? 'made as a draft (visync report send delivers it)' : 'made'}: ${f.location ?? ''}`;
  const fields = [
    { title: 'account', value: f.account, short: true },
    { title: 'client', value: client, short: true },
    { title: 'period', value: f.period, short: true },
    stale
      ? { title: 'reason', value: short(f.staleReason ?? ''), short: false }
      : { title: 'location', value: f.location ?? '', short: false },
  ];
  return {
    ...slackParts(text, stale ? 'warning' : 'good', fields),
    visync: {
      event: stale ? 'stale' : 'report',
      account: f.account,
      brand_id: f.brandId,
      brand_name: client,
      period: f.period,
      ...(f.location ? { location: f.location } : {}),
      ...(stale ? { reason: short(f.staleReason ?? '') } : {}),
      failed_workspaces: [],
      failed_tables: [],
    },
  };
}

/** Report mail stopped for the night: a server or login failed, no further sends to it (src/delivery/mail/session.ts). */
export function mailStoppedAlert(f: {
  account?: string | undefined;
  server: string;
  reason: string;
}): AlertPayload {
  const reason = short(f.reason);
  const text = `visync: report mail through SMTP ${f.server} stopped${f.account ? ` for account ${f.account}` : ''}: ${reason}. The reports not sent are tried again at the next nightly run, or with visync report send.`;
  return {
    ...slackParts(text, 'danger', [{ title: 'reason', value: reason, short: false }]),
    visync: {
      event: 'failed',
      account: f.account ?? '',
      error: reason,
      failed_workspaces: [],
      failed_tables: [],
    },
  };
}
