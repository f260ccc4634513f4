// An account's API key before validation: apiKey or apiKeyFile (read here), a key that looks wrong,
// and the placeholder for commands that never call the API. Every key value seen is collected for
// redaction and the log scrubber.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConfigIssue } from './config-error.js';
import {
  fileErrorReason,
  type InterpolationProblem,
  type InterpolationResult,
  keyVariable,
  type VariableLookup,
} from './interpolate.js';
import { keyValueProblem } from './key-value.js';
import type { LogoReader } from './report-logo.js';

/**
 * `required`: every account's API key must resolve (commands that call the API: run --once,
 * worker, doctor). `unused`: a key whose environment variable is unset is accepted, for commands
 * that never call the API (status, enqueue, replay, runs, export, run --once --plan), so an operator
 * can run them where the keys are not.
 */
export type ApiKeysNeed = 'required' | 'unused';

/** Stands for a key the command does not use; never sent (those commands make no API call). */
export const UNUSED_KEY = 'unused-by-this-command';

export interface AccountContext {
  lookup: VariableLookup;
  /** What `${NAME}` references read: to say which variable a bad key came from. */
  env: NodeJS.ProcessEnv;
  apiKeys: ApiKeysNeed;
  /** Every key value seen (valid or not), for redaction and the log scrubber. */
  secrets: string[];
  logos: LogoReader;
}

/**
 * Before validation: apiKeyFile becomes apiKey (read from the file), and for commands that never
 * call the API an unset key variable or an unreadable key file becomes a placeholder.
 * `prefix` is the account's path in `interpolated` (`accounts.0.`, or '' for an account file).
 */
export function prepareAccount(
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
