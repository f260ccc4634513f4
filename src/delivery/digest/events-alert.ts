// The brand-watch alert of a run (alerts.on: events): one short message per account and run,
// through the alerts webhook: a head with the counts, one line per client (most severe first, at
// most MAX_CLIENTS) with its worst change, a count of the changes not shown, and the `visync events`
// command for the detail; every name a display name (./display-names.ts), every API string escaped
// for Slack. Sent once: a marker beside the manifest records the delivery, so a retried finish job
// or a replay sends nothing again.
import type { Logger } from 'pino';
import type { AccountConfig, Config } from '../../config/schema.js';
import { counted, describeEvent, ID_NAMING, type Naming } from '../../events/describe.js';
import { type BrandEvent, bySeverityOf, readEvents } from '../../events/read.js';
import { applyRules, quietLine } from '../../events/rules.js';
import { eventsAlertKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { errorMessage } from '../../util/errors.js';
import { type AlertPayload, slackEscape } from '../webhooks/payloads.js';
import { type SendOptions, sendAlert } from '../webhooks/send.js';
import { displayNames } from './display-names.js';

/** Clients listed one by one in the text; the others are counted. */
export const MAX_CLIENTS = 5;
/** Changes listed per client in its attachment field. */
const MAX_PER_CLIENT = 3;

/** The command that lists the detail (docs/operations.md, "Brand watch"). */
const detailCommand = (account: string, since: string, brandId?: string) =>
  `visync events --account ${account}${brandId === undefined ? '' : ` --brand ${brandId}`} --since ${since}`;

/** The message for a run's events under the account's rules; undefined when none is alerted. */
export function eventsAlert(
  config: Pick<Config, 'watch'>,
  account: Pick<AccountConfig, 'name' | 'watch'>,
  runId: string,
  events: readonly BrandEvent[],
  naming: Naming = ID_NAMING,
): AlertPayload | undefined {
  const { listed, quiet } = applyRules(config.watch, account.watch, events);
  if (!listed.size && !quiet.size) return undefined;
  const groups = [...listed.values()].map((g) => g.sort(bySeverityOf));
  groups.sort((a, b) => bySeverityOf(a[0] as BrandEvent, b[0] as BrandEvent) || b.length - a.length);
  const count = groups.reduce((n, g) => n + g.length, 0);
  const since = events.reduce((d, e) => (d === '' || e.snapshot_date < d ? e.snapshot_date : d), '');
  const name = (g: BrandEvent[]) => slackEscape(naming.workspace((g[0] as BrandEvent).brand_id));
  const line = (e: BrandEvent) => describeEvent(e, slackEscape, naming);
  const shown = groups.slice(0, MAX_CLIENTS);
  const lines = [
    `visync: ${counted(count, 'change')} for ${counted(groups.length, 'client')} in account ${slackEscape(account.name)}, run ${runId}`,
    ...shown.map((g) => `• *${name(g)}*: ${counted(g.length, 'change')}; worst: ${line(g[0] as BrandEvent)}`),
  ];
  const rest = count - shown.length;
  const hidden = groups.length - shown.length;
  if (rest > 0)
    lines.push(
      `... and ${counted(rest, 'more change')}${hidden ? ` (${counted(hidden, 'more client')})` : ''}`,
    );
  if (quiet.size) lines.push(quietLine(quiet));
  if (since) lines.push(`Details: \`${detailCommand(account.name, since)}\``);
  const fields: AlertPayload['attachments'][number]['fields'] = shown.map((g) => ({
    title: `${name(g)}: ${counted(g.length, 'change')}`,
    value: [
      ...g.slice(0, MAX_PER_CLIENT).map((e) => `• ${line(e)}`),
      `\`${detailCommand(account.name, since, (g[0] as BrandEvent).brand_id)}\``,
    ].join('\n'),
    short: false,
  }));
  const high = groups.some((g) => g[0]?.severity === 'high');
  return {
    text: lines.join('\n'),
    attachments: [{ color: high ? 'danger' : 'warning', fields }],
    visync: {
      event: 'events',
      account: account.name,
      run_id: runId,
      failed_workspaces: [],
      failed_tables: [],
      brand_events: groups.flat().map((e) => ({
        brand_id: e.brand_id,
        brand_name: naming.workspace(e.brand_id),
        event_type: e.event_type,
        key: e.key,
        severity: e.severity,
        event_id: e.event_id,
      })),
    },
  };
}

export interface SendEventsAlertOptions {
  config: Pick<Config, 'alerts' | 'watch' | 'accounts' | 'reports'>;
  store: ObjectStore;
  account: string;
  runId: string;
  logger: Logger;
  send?: SendOptions;
}

/** Reads the run's events and sends their message once. Never throws. */
export async function sendEventsAlert(o: SendEventsAlertOptions): Promise<void> {
  const fields = { account: o.account, run_id: o.runId };
  try {
    const alerts = o.config.alerts;
    const account = o.config.accounts.find((a) => a.name === o.account);
    if (!alerts?.on.includes('events') || !account) return;
    const marker = eventsAlertKey(o.account, o.runId);
    if (await o.store.get(marker)) return;
    const events = await readEvents(o.store, o.account, { runId: o.runId });
    const naming = await displayNames(o.config, account, o.store, new Set(events.map((e) => e.brand_id)));
    const payload = eventsAlert(o.config, account, o.runId, events, naming);
    if (!payload) return;
    const res = await sendAlert(alerts.webhook, payload, o.send);
    if (!res.ok) {
      o.logger.warn({ ...fields, attempts: res.attempts, err: res.error }, 'events alert not delivered');
      return;
    }
    await o.store.put(marker, `${JSON.stringify({ sent: payload.visync.brand_events?.length ?? 0 })}\n`, {
      contentType: 'application/json',
    });
    o.logger.info(fields, 'events alert sent');
  } catch (err) {
    o.logger.warn({ ...fields, err: errorMessage(err) }, 'events alert not delivered');
  }
}
