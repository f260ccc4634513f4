import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { MIN_SECRET_LENGTH, registerSecret } from '../log.js';
import { redactSecrets } from '../util/redact.js';
import { ConfigError, type ConfigIssue } from './config-error.js';
import { interpolateEnv, joinPath, plainTextKeys } from './interpolate.js';
import { type Config, ConfigSchema } from './schema.js';

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

export function loadConfig(
  path?: string,
  env: NodeJS.ProcessEnv = process.env,
  onWarning: WarningSink = warnOnStderr,
  apiKeys: ApiKeysNeed = 'required',
): Config {
  const file = resolveConfigPath(path, env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
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
  return parseConfig(text, { source: file, env, onWarning, apiKeys });
}

/** Unset `${NAME}` API keys become a placeholder instead of an error (ApiKeysNeed `unused`). */
function acceptUnsetKeys(interpolated: ReturnType<typeof interpolateEnv>): void {
  const accounts = (interpolated.value as { accounts?: unknown } | null)?.accounts;
  if (!Array.isArray(accounts)) return;
  accounts.forEach((a: unknown, i) => {
    const path = `accounts.${i}.apiKey`;
    if (!interpolated.unset.has(path) || a === null || typeof a !== 'object') return;
    (a as { apiKey?: string }).apiKey = UNUSED_KEY;
    interpolated.unset.delete(path);
  });
}

/** For commands that never call the API: an account key whose variable is unset is accepted. */
export function loadConfigWithoutKeys(path?: string): Config {
  return loadConfig(path, process.env, warnOnStderr, 'unused');
}

/**
 * `redis: { url: ${REDIS_URL} }` (the design's own example) is not valid YAML: `{` and `}` end a
 * plain scalar inside flow collections. A reference that stands as a whole value there is quoted
 * before parsing. Only the reference is quoted, never a value, so nothing can be injected.
 */
export function quoteFlowReferences(text: string): string {
  return text.replace(
    /(:[ \t]+|[[,][ \t]*)(\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^{}"'\n,\]]*)?\})(?=[ \t]*[,}\]])/g,
    '$1"$2"',
  );
}

/**
 * Parses and validates a config text. On success every API key is registered with the log
 * scrubber, and a key written in the file itself (not `${NAME}`) is reported through `onWarning`.
 */
export function parseConfig(
  text: string,
  opts: { source: string; env?: NodeJS.ProcessEnv; onWarning?: WarningSink; apiKeys?: ApiKeysNeed },
): Config {
  const { source } = opts;
  const env = opts.env ?? process.env;

  // prettyErrors off: the pretty form quotes the offending source line, which may hold a key.
  const doc = parseDocument(quoteFlowReferences(text), { prettyErrors: false });
  if (doc.errors.length > 0) {
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

  const tree: unknown = doc.toJS();
  const interpolated = interpolateEnv(tree, env);
  if (opts.apiKeys === 'unused') acceptUnsetKeys(interpolated);
  const secrets = collectApiKeys(interpolated.value);
  const issues: ConfigIssue[] = [...interpolated.problems];

  const parsed = ConfigSchema.safeParse(interpolated.value, { error: fallbackMessage });
  if (parsed.success && issues.length === 0) {
    for (const a of parsed.data.accounts) if (a.apiKey !== UNUSED_KEY) registerSecret(a.apiKey);
    for (const path of plainTextKeys(tree)) {
      (opts.onWarning ?? warnOnStderr)(
        `${source}: ${path}: the API key is written in the config file in plain text; put it in an environment variable (or an untracked .env file) and reference it, e.g. apiKey: \${ACME_API_KEY}`,
      );
    }
    return parsed.data;
  }

  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      for (const { path, message } of describeIssue(issue)) {
        // An invalid reference is already reported for this value; this issue is its consequence.
        const consequence = (p: ConfigIssue) =>
          p.path === path || (issue.code === 'invalid_union' && isAtOrBelow(p.path, path));
        if (interpolated.problems.some(consequence)) continue;
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
  }
  // A path can carry a secret too: a key pasted where a key name belongs is an unknown key.
  throw new ConfigError(
    source,
    issues.map((i) => ({ path: redact(i.path, secrets), message: redact(i.message, secrets) })),
  );
}

function isAtOrBelow(path: string, ancestor: string): boolean {
  return ancestor === '' || path === ancestor || path.startsWith(`${ancestor}.`);
}

function describeIssue(issue: z.core.$ZodIssue): ConfigIssue[] {
  const path = joinPath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(ConfigSchema, issue.path);
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
    if (def.type === 'object' && def.shape) for (const k of Object.keys(def.shape)) keys.add(k);
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
  };
  if (def.type === 'object' && def.shape && typeof segment === 'string') {
    const c = def.shape[segment];
    return c ? [c] : [];
  }
  if (def.type === 'array' && def.element && typeof segment === 'number') return [def.element];
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

function collectApiKeys(tree: unknown): string[] {
  if (tree === null || typeof tree !== 'object') return [];
  const accounts = (tree as { accounts?: unknown }).accounts;
  if (!Array.isArray(accounts)) return [];
  return accounts
    .map((a: unknown) =>
      a !== null && typeof a === 'object' ? (a as { apiKey?: unknown }).apiKey : undefined,
    )
    .filter((k): k is string => typeof k === 'string' && k.length >= MIN_SECRET_LENGTH);
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
