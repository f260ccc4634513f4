import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { MIN_SECRET_LENGTH, registerSecret } from '../log.js';
import { redactSecrets } from '../util/redact.js';
import { type RawAccount, readAccountsFrom } from './accounts-from.js';
import { ConfigError, type ConfigIssue } from './config-error.js';
import {
  envLookup,
  fileErrorReason,
  type InterpolationProblem,
  type InterpolationResult,
  interpolateEnv,
  isPlainTextKey,
  joinPath,
  keyVariable,
  type VariableLookup,
} from './interpolate.js';
import { keyValueProblem } from './key-value.js';
import { LogoReader } from './report-logo.js';
import { type AccountConfig, AccountSchema, type Config, ConfigFileSchema } from './schema.js';

type ConfigFile = z.output<typeof ConfigFileSchema>;

export { ConfigError, type ConfigIssue } from './config-error.js';

export const DEFAULT_CONFIG_PATH = 'config/visync.yaml';

export function resolveConfigPath(cliPath?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (cliPath) return cliPath;
  if (env.VISYNC_CONFIG) return env.VISYNC_CONFIG;
  return DEFAULT_CONFIG_PATH;
}

/** Says something about the config that is allowed but unwise; `visync: warning: ...` on stderr by default. */
export type WarningSink = (message: string) => void;

const warned = new Set<string>();
/** Each warning once per process, however often the config is read. */
const warnOnStderr: WarningSink = (message) => {
  if (warned.has(message)) return;
  warned.add(message);
  process.stderr.write(`visync: warning: ${message}\n`);
};

/**
 * `required`: every account's API key must resolve (commands that call the API: run --once,
 * worker, doctor). `unused`: a key whose environment variable is unset is accepted, for commands
 * that never call the API (status, enqueue, replay, runs, export, run --once --plan), so an operator
 * can run them where the keys are not.
 */
export type ApiKeysNeed = 'required' | 'unused';

/** Stands for a key the command does not use; never sent (those commands make no API call). */
const UNUSED_KEY = 'unused-by-this-command';

/** loadConfigDetailed's config alone (it also says where accounts are defined and which files were read). */
export function loadConfig(...args: Parameters<typeof loadConfigDetailed>): Config {
  return loadConfigDetailed(...args).config;
}

/** For commands that never call the API: an account key whose variable is unset is accepted. */
export function loadConfigWithoutKeys(path?: string): Config {
  return loadConfig(path, process.env, warnOnStderr, 'unused');
}

/**
 * `redis: { url: ${REDIS_URL} }` (the obvious way to write it) is not valid YAML: `{` and `}` end a
 * plain scalar inside flow collections. A reference that stands as a whole value there is quoted
 * before parsing. Only the reference is quoted, never a value, so nothing can be injected.
 */
export function quoteFlowReferences(text: string): string {
  return text.replace(
    /(:[ \t]+|[[,][ \t]*)(\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^{}"'\n,\]]*)?\})(?=[ \t]*[,}\]])/g,
    '$1"$2"',
  );
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

export interface LoadedConfig {
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

export function loadConfigDetailed(
  path?: string,
  env: NodeJS.ProcessEnv = process.env,
  onWarning: WarningSink = warnOnStderr,
  apiKeys: ApiKeysNeed = 'required',
): LoadedConfig {
  const file = resolveConfigPath(path, env);
  return parseConfigDetailed(readConfigText(file), { source: file, env, onWarning, apiKeys });
}

export function parseConfigDetailed(text: string, opts: ParseOptions): LoadedConfig {
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

  const accounts: { account: AccountConfig; origin: AccountOrigin; raw: unknown }[] = [];
  if (parsed.success) {
    ctx.logos.embed(parsed.data.reports, baseDir, 'reports.logo', issues);
    (parsed.data.accounts ?? []).forEach((account, i) => {
      const raw = (rawAccounts as unknown[])[i];
      embedAccountLogos(account, baseDir, `accounts.${i}.`, issues, ctx.logos);
      accounts.push({ account, raw, origin: origin(`accounts.${i}`, raw, account) });
    });
  }
  // Read also when the rest of the file is invalid, so that every problem shows in one go.
  const written = (interpolated.value as { accountsFrom?: unknown } | null)?.accountsFrom;
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
  // No account at all is worth saying only when no account was rejected for its own problems.
  if (parsed.success)
    issues.push(...accountSetIssues(accounts, parsed.data, accountsFrom, issues.length === 0));

  const secrets = [...ctx.secrets, ...fromFiles].filter((k) => k.length >= MIN_SECRET_LENGTH);
  if (!parsed.success || issues.length > 0) {
    // A path can carry a secret too: a key pasted where a key name belongs is an unknown key.
    throw new ConfigError(
      source,
      issues.map((i) => ({ path: redact(i.path, secrets), message: redact(i.message, secrets) })),
    );
  }
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
  return {
    config,
    origins: new Map(accounts.map((a) => [a.account.name, a.origin])),
    files,
    accountsFrom,
  };
}

const PLAIN_TEXT_FIX =
  'put it in an environment variable (or an untracked .env file) and reference it, e.g. apiKey: ${ACME_API_KEY}, or in a file named by apiKeyFile';

/** One warning per key written as text; for a file of many such accounts, one for them all. */
function warnPlainTextKeys(source: string, origins: AccountOrigin[], warn: WarningSink): void {
  if (origins.length <= 3) {
    for (const o of origins) {
      warn(
        `${source}: ${pathIn(o.where, 'apiKey')}: the API key is written in the config file in plain text; ${PLAIN_TEXT_FIX}`,
      );
    }
    return;
  }
  const first = pathIn(origins[0]!.where, 'apiKey');
  warn(
    `${source}: ${first} and ${origins.length - 1} more: API keys are written in plain text; for each, ${PLAIN_TEXT_FIX}`,
  );
}

function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const abs = resolve(file);
    const where = abs === file ? file : `${file} (${abs})`;
    if (code === 'ENOENT') {
      throw new ConfigError(file, [
        {
          path: '',
          message: `config file not found: tried ${where}. Copy config/visync.example.yaml to config/visync.yaml and edit it, or point to your file with --config PATH or VISYNC_CONFIG=PATH.`,
        },
      ]);
    }
    const reason =
      code === 'EISDIR'
        ? 'it is a directory'
        : code === 'EACCES'
          ? 'permission denied'
          : (code ?? 'unknown error');
    throw new ConfigError(file, [{ path: '', message: `cannot read config file ${where}: ${reason}` }]);
  }
}

function parseYaml(text: string, source: string): unknown {
  // prettyErrors off: the pretty form quotes the offending source line, which may hold a key.
  const doc = parseDocument(quoteFlowReferences(text), { prettyErrors: false });
  if (doc.errors.length === 0) return doc.toJS();
  // Only the first error: later ones are nearly always knock-on effects of it.
  const e = doc.errors[0]!;
  const pos = e.linePos?.[0] ?? lineCol(text, e.pos[0]);
  const line = text.split(/\r?\n/)[pos.line - 1] ?? '';
  const hint =
    /\$\{/.test(line) && /[{[]/.test(line.replace(/\$\{[^}]*\}/g, ''))
      ? ' (inside { } or [ ], quote a ${NAME} reference: { url: "${REDIS_URL}" })'
      : '';
  throw new ConfigError(source, [
    {
      path: '',
      message: `line ${pos.line}, column ${pos.col}: YAML syntax error: ${yamlReason(e.message)}${hint}`,
    },
  ]);
}

interface AccountContext {
  lookup: VariableLookup;
  /** What `${NAME}` references read: to say which variable a bad key came from. */
  env: NodeJS.ProcessEnv;
  apiKeys: ApiKeysNeed;
  /** Every key value seen (valid or not), for redaction and the log scrubber. */
  secrets: string[];
  logos: LogoReader;
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
  for (const [id, ws] of Object.entries(reports.workspaces ?? {}))
    logos.embed(ws, dir, `${prefix}reports.workspaces.${id}.logo`, issues);
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

/**
 * Before validation: apiKeyFile becomes apiKey (read from the file), and for commands that never
 * call the API an unset key variable or an unreadable key file becomes a placeholder.
 * `prefix` is the account's path in `interpolated` (`accounts.0.`, or '' for an account file).
 */
function prepareAccount(
  account: unknown,
  raw: unknown,
  prefix: string,
  dir: string,
  interpolated: InterpolationResult,
  issues: ConfigIssue[],
  suppressed: Set<string>,
  ctx: AccountContext,
): void {
  if (account === null || typeof account !== 'object' || Array.isArray(account)) return;
  const a = account as { apiKey?: unknown; apiKeyFile?: unknown };
  const rawKeys = raw !== null && typeof raw === 'object' ? Object.keys(raw) : [];
  const keyPath = `${prefix}apiKey`;
  const filePath = `${prefix}apiKeyFile`;
  if (typeof a.apiKey === 'string') ctx.secrets.push(a.apiKey);
  if (rawKeys.includes('apiKey') && rawKeys.includes('apiKeyFile')) {
    issues.push({ path: filePath, message: 'set either apiKey or apiKeyFile, not both' });
    suppressed.add(keyPath);
    return;
  }
  if (rawKeys.includes('apiKeyFile')) {
    const unsetVar = interpolated.unset.get(filePath);
    if (typeof a.apiKeyFile !== 'string' || a.apiKeyFile === '') {
      if (ctx.apiKeys === 'unused' && unsetVar) {
        a.apiKey = UNUSED_KEY;
        interpolated.unset.delete(filePath);
      } else {
        // The schema names the wrong value at apiKeyFile; a missing apiKey is its consequence.
        suppressed.add(keyPath);
      }
      return;
    }
    const file = resolve(dir, a.apiKeyFile);
    a.apiKeyFile = file;
    const read = readKeyFile(file);
    const problem = read.ok ? keyValueProblem(read.key) : undefined;
    if (read.ok && problem) {
      issues.push({ path: filePath, message: `the key in ${file} ${problem}` });
      suppressed.add(keyPath);
    } else if (read.ok) {
      a.apiKey = read.key;
      ctx.secrets.push(read.key);
    } else if (ctx.apiKeys === 'unused') {
      a.apiKey = UNUSED_KEY;
    } else {
      issues.push({ path: filePath, message: read.message });
      suppressed.add(keyPath);
    }
    return;
  }
  const problem = typeof a.apiKey === 'string' && a.apiKey !== '' ? keyValueProblem(a.apiKey) : undefined;
  if (problem) {
    issues.push({ path: `${keyPath}${keySource(raw, ctx.env)}`, message: `the key ${problem}` });
    suppressed.add(keyPath);
    return;
  }
  if (ctx.apiKeys !== 'unused') return;
  if (interpolated.unset.has(keyPath)) {
    a.apiKey = UNUSED_KEY;
    interpolated.unset.delete(keyPath);
  }
  // A NAME_FILE that cannot be read here is as good as an unset variable for these commands.
  const unreadable = (p: InterpolationProblem) => p.path === keyPath && p.unreadableFile === true;
  if (interpolated.problems.some(unreadable)) {
    a.apiKey = UNUSED_KEY;
    interpolated.problems = interpolated.problems.filter((p) => !unreadable(p));
    issues.splice(0, issues.length, ...issues.filter((p) => !unreadable(p as InterpolationProblem)));
  }
}

/** ` (${NAME})` when the key is read from one variable (` from NAME_FILE` when through its file). */
function keySource(raw: unknown, env: NodeJS.ProcessEnv): string {
  const name = keyVariable((raw as { apiKey?: unknown } | null)?.apiKey);
  if (!name) return '';
  const viaFile = env[name] === undefined && env[`${name}_FILE`] ? ` from ${name}_FILE` : '';
  return ` (\${${name}}${viaFile})`;
}

/** A key file as a secret mount holds it: the key, maybe with a trailing newline. */
function readKeyFile(file: string): { ok: true; key: string } | { ok: false; message: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { ok: false, message: `cannot read the key file ${file}: ${fileErrorReason(err)}` };
  }
  const key = text.trim();
  if (key === '') return { ok: false, message: `the key file ${file} is empty` };
  return { ok: true, key };
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
  return issues;
}

function describeIssues(
  zodIssues: readonly z.core.$ZodIssue[],
  schema: z.core.$ZodType,
  interpolated: InterpolationResult,
  suppressed: ReadonlySet<string>,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of zodIssues) {
    for (const { path, message } of describeIssue(issue, schema)) {
      // An invalid reference is already reported for this value; this issue is its consequence.
      const consequence = (p: ConfigIssue) =>
        p.path === path || (issue.code === 'invalid_union' && isAtOrBelow(p.path, path));
      if (interpolated.problems.some(consequence) || suppressed.has(path)) continue;
      const unsetVar =
        interpolated.unset.get(path) ??
        // A union reports one issue for the whole value, above the path of the unset variable.
        (issue.code === 'invalid_union'
          ? [...interpolated.unset].find(([p]) => isAtOrBelow(p, path))?.[1]
          : undefined);
      issues.push({
        path,
        message: unsetVar ? `${message} (environment variable ${unsetVar} is not set)` : message,
      });
    }
  }
  return issues;
}

function isAtOrBelow(path: string, ancestor: string): boolean {
  return ancestor === '' || path === ancestor || path.startsWith(`${ancestor}.`);
}

function describeIssue(issue: z.core.$ZodIssue, schema: z.core.$ZodType): ConfigIssue[] {
  const path = joinPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(schema, issue.path);
    return issue.keys.map((key) => {
      const suggestion = suggest(key, known);
      return {
        path: path ? `${path}.${key}` : key,
        message: suggestion ? `unknown key (did you mean ${suggestion}?)` : unknownKeyMessage(known),
      };
    });
  }
  if (issue.code === 'invalid_union' && issue.message.startsWith('Invalid input')) {
    return [{ path, message: 'expected a different kind of value here' }];
  }
  return [{ path, message: issue.message }];
}

function unknownKeyMessage(known: string[]): string {
  return known.length > 0 ? `unknown key (expected one of: ${known.join(', ')})` : 'unknown key';
}

// Zod's own wording ("Invalid input: expected number, received string") for any issue a schema
// did not phrase itself; it names types only, never the value.
function fallbackMessage(iss: z.core.$ZodRawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type':
      return iss.input === undefined
        ? `required: expected ${article(iss.expected)}`
        : `expected ${article(iss.expected)}, got ${typeName(iss.input)}`;
    case 'too_small':
      return iss.origin === 'array' || iss.origin === 'string'
        ? `expected at least ${iss.minimum} ${iss.origin === 'array' ? 'item(s)' : 'character(s)'}`
        : `expected a value of at least ${iss.minimum}`;
    case 'too_big':
      return iss.origin === 'array' || iss.origin === 'string'
        ? `expected at most ${iss.maximum} ${iss.origin === 'array' ? 'item(s)' : 'character(s)'}`
        : `expected a value of at most ${iss.maximum}`;
    case 'invalid_value':
      return `expected one of: ${iss.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_format':
      return `expected a valid ${iss.format}`;
    default:
      return undefined;
  }
}

function article(type: string): string {
  const noun = type === 'int' ? 'integer' : type === 'object' ? 'mapping' : type === 'array' ? 'list' : type;
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function typeName(v: unknown): string {
  if (v === null) return 'null (an empty value)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return article(typeof v);
}

/** Keys that the strict object at `path` accepts, for "did you mean" hints. */
function knownKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let candidates: z.core.$ZodType[] = [schema];
  for (const segment of path) {
    candidates = candidates.flatMap(unwrap).flatMap((s) => child(s, segment));
  }
  const keys = new Set<string>();
  for (const s of candidates.flatMap(unwrap)) {
    const def = s._zod.def as { type: string; shape?: Record<string, unknown> };
    if (def.type === 'object' && def.shape) {
      // A key that only exists to refuse a value (smtp.password) is never a suggestion.
      for (const [k, v] of Object.entries(def.shape))
        if (!unwrap(v as z.core.$ZodType).every((u) => u._zod.def.type === 'never')) keys.add(k);
    }
  }
  return [...keys];
}

// Walks through wrappers (optional, default, preprocess pipes, unions) to the schemas that
// actually describe a value's shape.
function unwrap(s: z.core.$ZodType): z.core.$ZodType[] {
  const def = s._zod.def as unknown as {
    type: string;
    innerType?: z.core.$ZodType;
    in?: z.core.$ZodType;
    out?: z.core.$ZodType;
    options?: z.core.$ZodType[];
  };
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return def.innerType ? unwrap(def.innerType) : [];
    case 'pipe':
      return [def.in, def.out].filter((x): x is z.core.$ZodType => !!x).flatMap(unwrap);
    case 'union':
      return (def.options ?? []).flatMap(unwrap);
    default:
      return [s];
  }
}

function child(s: z.core.$ZodType, segment: PropertyKey): z.core.$ZodType[] {
  const def = s._zod.def as unknown as {
    type: string;
    shape?: Record<string, z.core.$ZodType>;
    element?: z.core.$ZodType;
    valueType?: z.core.$ZodType;
  };
  if (def.type === 'object' && def.shape && typeof segment === 'string') {
    const c = def.shape[segment];
    return c ? [c] : [];
  }
  if (def.type === 'array' && def.element && typeof segment === 'number') return [def.element];
  if (def.type === 'record' && def.valueType) return [def.valueType];
  return [];
}

export function suggest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = editDistance(key.toLowerCase().replace(/[-_]/g, ''), k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  // Allow about one typo per three characters, so short keys do not attract wild guesses.
  const limit = Math.max(1, Math.floor(key.length / 3));
  return bestDistance <= limit ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

// Defence in depth: no message is built from values, but a key must never leak even if one is.
function redact(message: string, secrets: readonly string[]): string {
  return redactSecrets(message, secrets, '***');
}

function yamlReason(message: string): string {
  // yaml appends " at line L, column C" (and with prettyErrors a source excerpt); we print our own
  // position. Some messages end with the offending source text, which could be a key: drop it.
  return message
    .replace(/ at line \d+, column \d+[\s\S]*$/, '')
    .replace(/:\s+(?!in\b)[\s\S]*$/, '')
    .trim();
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}
