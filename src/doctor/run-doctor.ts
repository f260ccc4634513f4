// `visync doctor`: every check of a setup, each under its own deadline, in a fixed order. The
// config comes first because every other check reads it; then the rest run side by side.
import { resolve } from 'node:path';
import { maxPauseMs } from '../api/pause-cap.js';
import { MemoryRateBudget } from '../api/rate-budget.js';
import { accountSettings, namesList, storeKey, warehouseKey } from '../config/account-settings.js';
import type { AccountConfig, Config, SinksConfig } from '../config/schema.js';
import { SMTP_TIMEOUTS } from '../delivery/mail/smtp.js';
import { CHROMIUM_FIX, CHROMIUM_START_TIMEOUT_MS, DEFAULT_CHROMIUM_PATH } from '../report/render/pdf.js';
import { pdfReportsConfigured, reportSettingsFor } from '../report/settings.js';
import { createObjectStore } from '../sinks/create-store.js';
import { checkAccount } from './account-check.js';
import {
  bigQueryClient,
  checkDataset,
  checkJobs,
  DATASET_CHECK,
  JOBS_CHECK,
  releaseBigQuerySockets,
} from './bigquery-check.js';
import { type CheckResult, fail, guarded } from './check.js';
import { CHROMIUM_CHECK, checkChromium } from './chromium-check.js';
import { checkConfig } from './config-check.js';
import { checkReportFonts, FONT_CHECK } from './font-check.js';
import { checkReportMail, MAIL_CHECK, MAIL_FIX, mailDeliveries } from './mail-check.js';
import { checkObjectStore } from './object-store-check.js';
import type { DoctorProbes } from './probes.js';
import { checkRedis, connectRedis } from './redis-check.js';
import { checkReportLanguages, reportLocales } from './report-language-check.js';
import { checkWebhook, WEBHOOK_CHECK, WEBHOOK_FIX } from './webhook-check.js';

const DEFAULT_CHECK_TIMEOUT_MS = 5000;

export interface DoctorOptions {
  /** How to reach the queue's Redis (./redis-probes.ts in `visync doctor`). */
  probes: DoctorProbes;
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Check only this account's key (the other checks still run). */
  account?: string;
  /** Deadline of each check. */
  timeoutMs?: number;
}

export async function runDoctor(o: DoctorOptions): Promise<CheckResult[]> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const { result: configResult, loaded } = checkConfig(o.configPath, o.env ?? process.env);
  if (!loaded) return [configResult];
  const { config, keyVars } = loaded;

  const accounts = config.accounts.filter((a) => o.account === undefined || a.name === o.account);
  const results: CheckResult[] = [configResult, ...checkReportLanguages(config, accounts)];
  if (accounts.length === 0) {
    results.push(fail(`account ${o.account}`, 'not in the config', `use one of: ${namesList(config)}`));
  }

  // One connection serves the Redis checks and the accounts' shared budget; without it each
  // account's GET /me is counted in a budget of this process only.
  const url = config.redis.url;
  const connection = url ? await connectRedis(o.probes, url, timeoutMs) : undefined;
  const redis = connection?.ok ? connection.probe : undefined;
  const cap = { maxPauseMs: maxPauseMs(config) };
  const budget = redis ? redis.budget({ prefix: config.redis.prefix, ...cap }) : new MemoryRateBudget(cap);
  // Each distinct store and dataset the checked accounts use (their own prefix, folder or dataset).
  const selected = accounts.length ? accounts : config.accounts;
  const stores = sinksGroups(config, selected, storeKey);
  const datasets = sinksGroups(config, selected, warehouseKey);
  const openStores = await Promise.all(stores.map((g) => createObjectStore(g.sinks)));
  const bqConfig = config.sinks.bigquery;
  const bq = bqConfig ? bigQueryClient(bqConfig) : undefined;
  const bqFix = `check sinks.bigquery.apiEndpoint (or access to bigquery.googleapis.com), the network and any proxy`;

  try {
    const groups = await Promise.all([
      ...accounts.map((account) =>
        guarded(`account ${account.name}`, timeoutMs, `check that ${account.baseUrl} answers`, (signal) =>
          checkAccount({
            account,
            budget,
            budgetName: redis ? 'Redis' : 'in-process',
            keyVar: keyVars.get(account.name),
            timeoutMs,
            signal,
          }),
        ),
      ),
      connection === undefined
        ? []
        : connection.ok
          ? guarded('redis', timeoutMs, 'check that Redis is not overloaded', () =>
              checkRedis(connection.probe),
            )
          : [connection.result],
      ...stores.map((g, i) => {
        const check = checkName(STORE_CHECK, g, stores.length);
        const store = openStores[i]!;
        return guarded(check, timeoutMs, 'check sinks.fs.dir or the S3 endpoint and network', () =>
          checkObjectStore(store, g.sinks.fs ? resolve(g.sinks.fs.dir) : undefined, check),
        );
      }),
      ...(bq
        ? datasets.map((g) => {
            const check = checkName(DATASET_CHECK, g, datasets.length);
            const cfg = g.sinks.bigquery!;
            return guarded(check, timeoutMs, bqFix, () => checkDataset(bq, cfg, check));
          })
        : []),
      bq && bqConfig ? guarded(JOBS_CHECK, timeoutMs, bqFix, () => checkJobs(bq, bqConfig)) : [],
      ...outboundChecks(config, selected, timeoutMs, o.env ?? process.env),
    ]);
    for (const g of groups) results.push(...g);
    return results;
  } finally {
    redis?.close();
    for (const store of openStores) store.close?.();
    if (bqConfig) releaseBigQuerySockets(bqConfig);
  }
}

/**
 * What leaves the process for a person, when configured: the browser that prints PDF reports, the
 * SMTP server that mails them, the alerts webhook. Each check has started when this returns.
 */
function outboundChecks(
  config: Config,
  selected: readonly AccountConfig[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): (Promise<CheckResult[]> | [])[] {
  return [
    // chromiumPath is set only at the top level: one browser serves every account.
    pdfReportsConfigured(config, selected)
      ? // Starting a browser is not a service answering: it gets the time a start may take.
        guarded(CHROMIUM_CHECK, Math.max(timeoutMs, CHROMIUM_START_TIMEOUT_MS), CHROMIUM_FIX, () =>
          checkChromium(reportSettingsFor(config, selected[0]!).chromiumPath),
        )
      : [],
    pdfReportsConfigured(config, selected)
      ? guarded(FONT_CHECK, timeoutMs, 'apt-get install -y fontconfig', () =>
          checkReportFonts([...reportLocales(config, selected).keys()], {
            env,
            remoteBrowser:
              Boolean(env.VISYNC_CHROMIUM_ENDPOINT) &&
              reportSettingsFor(config, selected[0]!).chromiumPath === DEFAULT_CHROMIUM_PATH,
          }),
        )
      : [],
    mailDeliveries(config, selected).length
      ? // An SMTP greeting may take longer than a service's answer: the time the mailer allows.
        guarded(MAIL_CHECK, Math.max(timeoutMs, SMTP_TIMEOUTS.greetingTimeout), MAIL_FIX, () =>
          checkReportMail(mailDeliveries(config, selected), env),
        )
      : [],
    config.alerts
      ? guarded(WEBHOOK_CHECK, timeoutMs, WEBHOOK_FIX, (signal) =>
          checkWebhook(config.alerts!.webhook, signal),
        )
      : [],
  ];
}

const STORE_CHECK = 'object store';

interface SinksGroup {
  sinks: SinksConfig;
  accounts: string[];
}

/** Accounts grouped by the store (or dataset) their effective sinks name, in config order. */
function sinksGroups(
  config: Config,
  accounts: readonly AccountConfig[],
  key: (sinks: SinksConfig) => string | undefined,
): SinksGroup[] {
  const groups = new Map<string, SinksGroup>();
  for (const account of accounts) {
    const { sinks } = accountSettings(config, account);
    const k = key(sinks);
    if (k === undefined) continue;
    const g = groups.get(k) ?? { sinks, accounts: [] };
    g.accounts.push(account.name);
    groups.set(k, g);
  }
  return [...groups.values()];
}

/** `object store` when every account shares one; else which accounts each one serves. */
function checkName(base: string, g: SinksGroup, groups: number): string {
  if (groups <= 1) return base;
  const names =
    g.accounts.length > 3
      ? `${g.accounts.slice(0, 3).join(', ')} and ${g.accounts.length - 3} more`
      : g.accounts.join(', ');
  return `${base} of ${names}`;
}
