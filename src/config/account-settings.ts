// The one answer to "what are the effective settings of account X": the top-level settings with the
// account's own overrides applied (schedule, dataset, prefix or folder). Every consumer asks here,
// so that an override means the same in run --once, the worker, doctor and the schedules.

import { VisyncError } from '../util/errors.js';
import type {
  AccountConfig,
  Config,
  FsSinkConfig,
  NightlyScheduleConfig,
  S3SinkConfig,
  SinksConfig,
} from './schema.js';

export interface AccountSettings {
  account: AccountConfig;
  /** Nightly cron and time zone: the account's own, field by field, else schedule.nightly. */
  schedule: NightlyScheduleConfig;
  /** sinks with the account's bigquery.dataset, s3.prefix or fs.dir in place of the top-level ones. */
  sinks: SinksConfig;
  brands: AccountConfig['brands'];
  /** The configured ceiling; undefined: the limit GET /me reports (else 120). */
  requestsPerMinute: number | undefined;
}

export class UnknownAccountError extends VisyncError {
  override readonly name = 'UnknownAccountError';
  get code() {
    return 'unknown_account' as const;
  }
}

export function accountSettings(config: Config, account: string | AccountConfig): AccountSettings {
  const a = typeof account === 'string' ? findAccount(config, account) : account;
  return {
    account: a,
    schedule: effectiveSchedule(config, a),
    sinks: effectiveSinks(config.sinks, a),
    brands: a.brands,
    requestsPerMinute: a.requestsPerMinute,
  };
}

export function allAccountSettings(config: Config): AccountSettings[] {
  return config.accounts.map((a) => accountSettings(config, a));
}

/** The account named `name`, or an UnknownAccountError naming the configured ones. */
export function findAccount(config: Config, name: string): AccountConfig {
  const a = config.accounts.find((x) => x.name === name);
  if (!a) {
    throw new UnknownAccountError(`unknown account ${name}: the config has ${namesList(config)}`);
  }
  return a;
}

/** The configured account names for a message: all of a few, the first ten of a thousand. */
export function namesList(config: Config, max = 10): string {
  const names = config.accounts.map((a) => a.name);
  return names.length > max
    ? `${names.slice(0, max).join(', ')} and ${names.length - max} more`
    : names.join(', ');
}

export function effectiveSchedule(config: Config, account: AccountConfig): NightlyScheduleConfig {
  const top = config.schedule.nightly;
  return { cron: account.schedule?.cron ?? top.cron, tz: account.schedule?.tz ?? top.tz };
}

function effectiveSinks(sinks: SinksConfig, account: AccountConfig): SinksConfig {
  const out: SinksConfig = { ...sinks };
  if (sinks.fs)
    out.fs = { ...sinks.fs, ...(account.fs ? { dir: account.fs.dir } : {}) } satisfies FsSinkConfig;
  if (sinks.s3) {
    out.s3 = { ...sinks.s3, ...(account.s3 ? { prefix: account.s3.prefix } : {}) } satisfies S3SinkConfig;
  }
  if (sinks.bigquery && account.bigquery)
    out.bigquery = { ...sinks.bigquery, dataset: account.bigquery.dataset };
  return out;
}

/** Identity of an object store: accounts with equal keys share one store. */
/** `accounts` grouped by a key of their effective sinks (storeKey, warehouseKey), in config order. */
export function groupBySinks(
  config: Config,
  accounts: readonly string[],
  keyOf: (sinks: SinksConfig) => string,
): string[][] {
  const groups = new Map<string, string[]>();
  for (const name of accounts) {
    const key = keyOf(accountSettings(config, name).sinks);
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  return [...groups.values()];
}

export function storeKey(sinks: SinksConfig): string {
  return stableJson({ fs: sinks.fs, s3: sinks.s3 });
}

/** Identity of a warehouse (project, dataset, location, endpoint): equal keys share one loader. */
export function warehouseKey(sinks: SinksConfig): string | undefined {
  return sinks.bigquery ? stableJson(sinks.bigquery) : undefined;
}

function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}
