// The config: read (./yaml-text.ts), ${NAME} references filled in (./interpolate.ts), account keys
// prepared (./account-keys.ts), validated against ./schema.ts with zod issues in our words
// (./issues.ts), accountsFrom read, and the keys registered with the log scrubber.

import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { MIN_SECRET_LENGTH, registerSecret } from '../log.js';
import { redactSecrets } from '../util/redact.js';
import { type AccountContext, type ApiKeysNeed, prepareAccount, UNUSED_KEY } from './account-keys.js';
import { type RawAccount, readAccountsFrom } from './accounts-from.js';
import { lowContrastColours } from './colour-warnings.js';
import { ConfigError, type ConfigIssue } from './config-error.js';
import { envLookup, interpolateEnv, isPlainTextKey, keyVariable } from './interpolate.js';
import { describeIssues, fallbackMessage } from './issues.js';
import { LogoReader } from './report-logo.js';
import { type AccountConfig, AccountSchema, type Config, ConfigFileSchema } from './schema.js';
import { parseYaml, readConfigText } from './yaml-text.js';

type ConfigFile = z.output<typeof ConfigFileSchema>;

export type { ApiKeysNeed } from './account-keys.js';
export { ConfigError } from './config-error.js';

const DEFAULT_CONFIG_PATH = 'config/visync.yaml';

export function resolveConfigPath(cliPath?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (cliPath) return cliPath;
  if (env.VISYNC_CONFIG) return env.VISYNC_CONFIG;
  return DEFAULT_CONFIG_PATH;
}

/**
 * Says something about the config that is allowed but unwise; `visync: warning: ...` on stderr by
 * default. `message` names the config file in front; `parts` has the file and the rest apart, for a
 * reader that names the file already (doctor).
 */
export type WarningSink = (message: string, parts: { source: string; text: string }) => void;

const warned = new Set<string>();
/** Each warning once per process, however often the config is read. */
const warnOnStderr: WarningSink = (message) => {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`visync: warning: ${message}\n`);
};

/** readConfigDetailed's config alone (it also says where accounts are defined and which files were read). */
export function readConfig(...args: Parameters<typeof readConfigDetailed>): Config {
  return readConfigDetailed(...args).config;
}

/** For commands that never call the API: an account key whose variable is unset is accepted. */
export function readConfigWithoutKeys(path?: string): Config {
  return readConfig(path, process.env, warnOnStderr, 'unused');
}

/** Where an account is defined, and where its key comes from (doctor says what to set). */
export interface AccountOrigin {
  /** `accounts.0`, or `accountsFrom: accounts/acme.yaml` (`... line 12` in a list or CSV). */
  where: string;
  /** The environment variable of `apiKey: ${NAME}`. */
  keyVariable?: string;
  /** The absolute path of apiKeyFile. */
  keyFile?: string;
}

export interface ConfigWithOrigins {
  config: Config;
  /** Account name -> where it is defined and where its key comes from. */
  origins: Map<string, AccountOrigin>;
  /** Files read besides the config file (accountsFrom and its files): what a watcher watches. */
  files: string[];
  /** The accountsFrom path, absolute, when set. */
  accountsFrom?: string;
}

export interface ParseOptions {
  source: string;
  env?: NodeJS.ProcessEnv;
  onWarning?: WarningSink;
  apiKeys?: ApiKeysNeed;
  /** Folder that relative paths (accountsFrom, apiKeyFile) resolve against; default: the source's. */
  baseDir?: string;
}

/**
 * Parses and validates a config text. On success every API key is registered with the log
 * scrubber, and a key written in the file itself (not `${NAME}`) is reported through `onWarning`.
 */
export function parseConfig(text: string, opts: ParseOptions): Config {
  return parseConfigDetailed(text, opts).config;
}

export function readConfigDetailed(
  path?: string,
  env: NodeJS.ProcessEnv = process.env,
  onWarning: WarningSink = warnOnStderr,
  apiKeys: ApiKeysNeed = 'required',
): ConfigWithOrigins {
  const file = resolveConfigPath(path, env);
  return parseConfigDetailed(readConfigText(file), { source: file, env, onWarning, apiKeys });
}

function parseConfigDetailed(text: string, opts: ParseOptions): ConfigWithOrigins {
  const { source } = opts;
  const env = opts.env ?? process.env;
  const baseDir = opts.baseDir ?? dirname(resolve(source));
  const tree = parseYaml(text, source);
  const fromFiles: string[] = [];
  const lookup = envLookup(env, fromFiles);
  const ctx: AccountContext = {
    lookup,
    env,
    apiKeys: opts.apiKeys ?? 'required',
    secrets: [],
    logos: new LogoReader(),
  };
  const interpolated = interpolateEnv(tree, lookup);
  const issues: ConfigIssue[] = [...interpolated.problems];
  const suppressed = new Set<string>();

  const rawAccounts = (tree as { accounts?: unknown } | null)?.accounts;
  const inlineAccounts = (interpolated.value as { accounts?: unknown } | null)?.accounts;
  if (Array.isArray(inlineAccounts) && Array.isArray(rawAccounts)) {
    inlineAccounts.forEach((a, i) => {
      prepareAccount(a, rawAccounts[i], `accounts.${i}.`, baseDir, interpolated, issues, suppressed, ctx);
    });
  }
  const parsed = ConfigFileSchema.safeParse(interpolated.value, { error: fallbackMessage });
  if (!parsed.success)
    issues.push(...describeIssues(parsed.error.issues, ConfigFileSchema, interpolated, suppressed));

  const accounts: FoundAccount[] = [];
  if (parsed.success) {
    ctx.logos.embed(parsed.data.reports, baseDir, 'reports.logo', issues);
    resolveNotesDir(parsed.data.reports, baseDir);
    (parsed.data.accounts ?? []).forEach((account, i) => {
      const raw = (rawAccounts as unknown[])[i];
      embedAccountLogos(account, baseDir, `accounts.${i}.`, issues, ctx.logos);
      accounts.push({ account, raw, origin: origin(`accounts.${i}`, raw, account) });
    });
  }
  // Read also when the rest of the file is invalid, so that every problem shows in one go.
  const { accountsFrom, files } = externalAccounts(interpolated.value, baseDir, ctx, accounts, issues);
  // No account at all is worth saying only when no account was rejected for its own problems.
  if (parsed.success)
    issues.push(...accountSetIssues(accounts, parsed.data, accountsFrom, issues.length === 0));

  const secrets = [...ctx.secrets, ...fromFiles].filter((k) => k.length >= MIN_SECRET_LENGTH);
  if (!parsed.success || issues.length > 0) throw redactedError(source, issues, secrets);
  for (const s of secrets) if (s !== UNUSED_KEY) registerSecret(s);
  for (const { account } of accounts) if (account.apiKey !== UNUSED_KEY) registerSecret(account.apiKey);
  warnPlainTextKeys(
    source,
    accounts
      .filter((a) => isPlainTextKey((a.raw as { apiKey?: unknown } | null)?.apiKey))
      .map((a) => a.origin),
    opts.onWarning ?? warnOnStderr,
  );
  const config: Config = {
    ...parsed.data,
    ...(accountsFrom !== undefined ? { accountsFrom } : {}),
    accounts: accounts.map((a) => a.account),
  };
  for (const text of lowContrastColours(config))
    (opts.onWarning ?? warnOnStderr)(`${source}: ${text}`, { source, text });
  return {
    config,
    origins: new Map(accounts.map((a) => [a.account.name, a.origin])),
    files,
    accountsFrom,
  };
}

/** An account as parsed, with where it is defined and its text before validation. */
interface FoundAccount {
  account: AccountConfig;
  origin: AccountOrigin;
  raw: unknown;
}

/**
 * The accounts of `accountsFrom`, each parsed on its own, added to `accounts`, and their problems
 * to `issues`; the files read, for a watcher.
 */
function externalAccounts(
  value: unknown,
  baseDir: string,
  ctx: AccountContext,
  accounts: FoundAccount[],
  issues: ConfigIssue[],
): { accountsFrom: string | undefined; files: string[] } {
  const written = (value as { accountsFrom?: unknown } | null)?.accountsFrom;
  const accountsFromWritten = typeof written === 'string' && written !== '' ? written : undefined;
  const accountsFrom = accountsFromWritten === undefined ? undefined : resolve(baseDir, accountsFromWritten);
  const files: string[] = [];
  if (accountsFrom !== undefined && accountsFromWritten !== undefined) {
    const external = readAccountsFrom(accountsFrom, accountsFromWritten);
    files.push(...external.files);
    issues.push(...external.problems);
    for (const raw of external.accounts) {
      const one = parseExternalAccount(raw, ctx);
      issues.push(...one.issues);
      if (one.account)
        accounts.push({
          account: one.account,
          raw: raw.tree,
          origin: origin(raw.where, raw.tree, one.account),
        });
    }
  }
  return { accountsFrom, files };
}

/** The config's problems as one error, every secret redacted from them. */
function redactedError(source: string, issues: ConfigIssue[], secrets: string[]): ConfigError {
  // A path can carry a secret too: a key pasted where a key name belongs is an unknown key.
  return new ConfigError(
    source,
    issues.map((i) => ({ path: redact(i.path, secrets), message: redact(i.message, secrets) })),
  );
}

const PLAIN_TEXT_FIX =
  'put it in an environment variable (or an untracked .env file) and reference it, e.g. apiKey: ${ACME_API_KEY}, or in a file named by apiKeyFile';

/** One warning per key written as text; for a file of many such accounts, one for them all. */
function warnPlainTextKeys(source: string, origins: AccountOrigin[], sink: WarningSink): void {
  const warn = (text: string) => sink(`${source}: ${text}`, { source, text });
  if (origins.length <= 3) {
    for (const o of origins) {
      warn(
        `${pathIn(o.where, 'apiKey')}: the API key is written in the config file in plain text; ${PLAIN_TEXT_FIX}`,
      );
    }
    return;
  }
  const first = pathIn(origins[0]!.where, 'apiKey');
  warn(
    `${first} and ${origins.length - 1} more: API keys are written in plain text; for each, ${PLAIN_TEXT_FIX}`,
  );
}

/** The account's report logos (its own and its workspaces'), as data: URIs; `prefix` as in prepareAccount. */
function embedAccountLogos(
  account: AccountConfig,
  dir: string,
  prefix: string,
  issues: ConfigIssue[],
  logos: LogoReader,
): void {
  const reports = account.reports;
  if (!reports) return;
  logos.embed(reports, dir, `${prefix}reports.logo`, issues);
  resolveNotesDir(reports, dir);
  for (const [id, ws] of Object.entries(reports.workspaces ?? {})) {
    logos.embed(ws, dir, `${prefix}reports.workspaces.${id}.logo`, issues);
    resolveNotesDir(ws, dir);
  }
}

/** `reports.notesDir` relative to the folder of the file that names it, as a logo's path is. */
function resolveNotesDir(block: { notesDir?: string } | undefined, dir: string): void {
  if (block?.notesDir !== undefined) block.notesDir = resolve(dir, block.notesDir);
}

/** `accounts.0.apiKey` for an account in the config file, `accountsFrom: a.yaml: apiKey` for one outside. */
function pathIn(where: string, key: string): string {
  if (!key) return where;
  return where.startsWith('accountsFrom') ? `${where}: ${key}` : `${where}.${key}`;
}

function origin(where: string, raw: unknown, account: AccountConfig): AccountOrigin {
  const keyVar = keyVariable((raw as { apiKey?: unknown } | null)?.apiKey);
  return {
    where,
    keyVariable: keyVar,
    keyFile: account.apiKeyFile,
  };
}

/** One account of accountsFrom: interpolated and validated as an entry of `accounts` is. */
function parseExternalAccount(
  raw: RawAccount,
  ctx: AccountContext,
): { account?: AccountConfig; issues: ConfigIssue[] } {
  const interpolated = interpolateEnv(raw.tree, ctx.lookup);
  const issues: ConfigIssue[] = [...interpolated.problems];
  const suppressed = new Set<string>();
  prepareAccount(interpolated.value, raw.tree, '', raw.dir, interpolated, issues, suppressed, ctx);
  const parsed = AccountSchema.safeParse(interpolated.value, { error: fallbackMessage });
  if (!parsed.success)
    issues.push(...describeIssues(parsed.error.issues, AccountSchema, interpolated, suppressed));
  else embedAccountLogos(parsed.data, raw.dir, '', issues, ctx.logos);
  return {
    ...(parsed.success && issues.length === 0 ? { account: parsed.data } : {}),
    issues: issues.map((i) => ({ path: pathIn(raw.where, i.path), message: i.message })),
  };
}

/** Across all accounts, wherever defined: at least one, unique names, overrides their sinks allow. */
function accountSetIssues(
  accounts: { account: AccountConfig; origin: AccountOrigin }[],
  file: ConfigFile,
  accountsFrom: string | undefined,
  checkEmpty: boolean,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (checkEmpty && accounts.length === 0) {
    issues.push(
      accountsFrom !== undefined
        ? { path: 'accountsFrom', message: `expected at least one account: ${accountsFrom} holds none` }
        : file.accounts
          ? { path: 'accounts', message: 'expected at least one account' }
          : {
              path: 'accounts',
              message: 'required: expected a list of accounts (at least one), or accountsFrom',
            },
    );
  }
  const seen = new Map<string, string>();
  for (const { account, origin: o } of accounts) {
    const first = seen.get(account.name);
    if (first !== undefined) {
      issues.push({
        path: pathIn(o.where, 'name'),
        message: `duplicate account name ${account.name}; names must be unique (also at ${first})`,
      });
    } else {
      seen.set(account.name, o.where);
    }
    const needs = (key: 'bigquery' | 's3' | 'fs', why: string) => {
      if (account[key] && !file.sinks[key])
        issues.push({ path: pathIn(o.where, key), message: `needs sinks.${key}: ${why}` });
    };
    needs('bigquery', "the account's dataset is created in the project and location of sinks.bigquery");
    needs('s3', "the account's prefix is in the bucket of sinks.s3");
    needs('fs', 'the account has its own folder only when the object store is sinks.fs');
  }
  issues.push(...linkIssues(accounts, file));
  return issues;
}

/** `reports.mail.link` at any level: a presigned URL needs an S3 store (docs/reports.md, "A link to the report"). */
function linkIssues(
  accounts: { account: AccountConfig; origin: AccountOrigin }[],
  file: ConfigFile,
): ConfigIssue[] {
  if (file.sinks.s3) return [];
  const message =
    'needs sinks.s3: the link is an S3 presigned URL, and a report on the local disk has no address a client can open';
  const at: string[] = [];
  if (file.reports?.mail?.link) at.push('reports.mail.link');
  for (const { account, origin: o } of accounts) {
    if (account.reports?.mail?.link) at.push(pathIn(o.where, 'reports.mail.link'));
    for (const [id, w] of Object.entries(account.reports?.workspaces ?? {}))
      if (w?.mail?.link) at.push(pathIn(o.where, `reports.workspaces.${id}.mail.link`));
  }
  return at.map((path) => ({ path, message }));
}

// Defence in depth: no message is built from values, but a key must never leak even if one is.
function redact(message: string, secrets: readonly string[]): string {
  return redactSecrets(message, secrets, '***');
}
