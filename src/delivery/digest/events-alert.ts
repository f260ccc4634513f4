// The brand-watch alert of a run (alerts.on: events): one message per account and run, through the
// alerts webhook, its workspaces in order of their most severe event, every API string escaped
// for Slack. Sent once: a marker beside the manifest records the delivery, so a retried finish
// job or a replay sends nothing again.
import type { Logger } from 'pino';
import type { AccountConfig, Config } from '../../config/schema.js';
import { describeEvent } from '../../events/describe.js';
import { type BrandEvent, bySeverityOf, readEvents } from '../../events/read.js';
import { applyRules, quietLine } from '../../events/rules.js';
import { eventsAlertKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { errorMessage } from '../../util/errors.js';
import { type AlertPayload, slackEscape } from '../webhooks/payloads.js';
import { type SendOptions, sendAlert } from '../webhooks/send.js';

const MAX_PER_WORKSPACE = 10;

/** The message for a run's events under the account's rules; undefined when none is alerted. */
export function eventsAlert(
  config: Pick<Config, 'watch'>,
  account: Pick<AccountConfig, 'name' | 'watch'>,
  runId: string,
  events: readonly BrandEvent[],
): AlertPayload | undefined {
  const { listed, quiet } = applyRules(config.watch, account.watch, events);
  if (!listed.size && !quiet.size) return undefined;
  const groups = [...listed.values()].map((g) => g.sort(bySeverityOf));
  groups.sort((a, b) => bySeverityOf(a[0] as BrandEvent, b[0] as BrandEvent));
  const count = groups.reduce((n, g) => n + g.length, 0);
  const lines = [`visync: ${count} changes in account ${account.name}, run ${runId}`];
  const fields: AlertPayload['attachments'][number]['fields'] = [];
  for (const g of groups) {
    const shown = g.slice(0, MAX_PER_WORKSPACE).map((e) => `• ${describeEvent(e, slackEscape)}`);
    if (g.length > MAX_PER_WORKSPACE) shown.push(`... and ${g.length - MAX_PER_WORKSPACE} more`);
    const title = `workspace ${slackEscape((g[0] as BrandEvent).brand_id)}`;
    lines.push(`*${title}*`, ...shown);
    fields.push({ title, value: shown.join('\n'), short: false });
  }
  if (quiet.size) lines.push(quietLine(quiet));
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
        event_type: e.event_type,
        key: e.key,
        severity: e.severity,
        event_id: e.event_id,
      })),
    },
  };
}

export interface SendEventsAlertOptions {
  config: Pick<Config, 'alerts' | 'watch' | 'accounts'>;
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
    const payload = eventsAlert(
      o.config,
      account,
      o.runId,
      await readEvents(o.store, o.account, { runId: o.runId }),
    );
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
