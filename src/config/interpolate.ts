// Environment interpolation runs on the parsed YAML tree rather than on the raw text, so an
// environment value can only ever become a string scalar: it cannot add keys, lists or
// documents to the configuration, whatever characters it contains.
import { readFileSync } from 'node:fs';

export interface InterpolationProblem {
  path: string;
  message: string;
  /** A NAME_FILE that could not be read (commands that never use the key accept that for a key). */
  unreadableFile?: true;
}

/**
 * What a `${NAME}` reference reads. NAME itself when set; when NAME is unset and NAME_FILE is set,
 * the content of the file NAME_FILE names, without its trailing newline: the convention of
 * Docker and Kubernetes secrets mounted as files (ACME_API_KEY_FILE=/run/secrets/acme).
 */
export type VariableLookup = (name: string) => LookupResult;
type LookupResult =
  | { kind: 'ok'; value: string }
  | { kind: 'unset' }
  | { kind: 'bad'; message: string; unreadableFile?: true };

/** Values read through NAME_FILE, so the loader can register them with the log scrubber. */
export function envLookup(env: NodeJS.ProcessEnv, fromFiles: string[] = []): VariableLookup {
  return (name) => {
    const value = env[name];
    if (value !== undefined) return { kind: 'ok', value };
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') return { kind: 'unset' };
    try {
      const content = readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
      fromFiles.push(content);
      return { kind: 'ok', value: content };
    } catch (err) {
      return {
        kind: 'bad',
        message: `environment variable ${name} is not set and ${name}_FILE names ${file}, which cannot be read (${fileErrorReason(err)})`,
        unreadableFile: true,
      };
    }
  };
}

/** Why a file could not be read, in words; never its content. */
export function fileErrorReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return code ?? 'unreadable';
}

export interface InterpolationResult {
  value: unknown;
  /** Dotted path -> name of the first unset variable referenced there; the value at that path is `undefined`. */
  unset: Map<string, string>;
  /** Malformed references; messages never quote the surrounding value, which may be a secret. */
  problems: InterpolationProblem[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function joinPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

type StringResult =
  | { kind: 'ok'; value: string }
  | { kind: 'unset'; name: string }
  | { kind: 'bad'; message: string; unreadableFile?: true };

/**
 * Expands `${NAME}` and `${NAME:-default}` in one string; `$${` yields a literal `${`.
 * As in POSIX shells, `:-` also applies when the variable is set but empty.
 */
function interpolateString(input: string, env: NodeJS.ProcessEnv | VariableLookup): StringResult {
  const lookup = typeof env === 'function' ? env : envLookup(env);
  let out = '';
  let firstUnset: string | undefined;
  let i = 0;
  while (i < input.length) {
    if (input.startsWith('$${', i)) {
      out += '${';
      i += 3;
      continue;
    }
    if (!input.startsWith('${', i)) {
      out += input[i];
      i += 1;
      continue;
    }
    const close = input.indexOf('}', i + 2);
    if (close === -1) {
      return { kind: 'bad', message: 'unterminated ${ reference (write $${ for a literal ${)' };
    }
    const body = input.slice(i + 2, close);
    const sep = body.indexOf(':-');
    const name = sep === -1 ? body : body.slice(0, sep);
    if (!NAME.test(name)) {
      return {
        kind: 'bad',
        message:
          'invalid ${...} reference: expected ${NAME} or ${NAME:-default} with NAME made of letters, digits and _ (write $${ for a literal ${)',
      };
    }
    const found = lookup(name);
    if (found.kind === 'bad') return found;
    const value = found.kind === 'ok' ? found.value : undefined;
    if (sep !== -1) {
      out += value === undefined || value === '' ? body.slice(sep + 2) : value;
    } else if (value === undefined) {
      firstUnset ??= name;
    } else {
      out += value;
    }
    i = close + 1;
  }
  if (firstUnset !== undefined) return { kind: 'unset', name: firstUnset };
  return { kind: 'ok', value: out };
}

export function interpolateEnv(tree: unknown, env: NodeJS.ProcessEnv | VariableLookup): InterpolationResult {
  const lookup = typeof env === 'function' ? env : envLookup(env);
  const unset = new Map<string, string>();
  const problems: InterpolationProblem[] = [];

  const walk = (node: unknown, path: PropertyKey[]): unknown => {
    if (typeof node === 'string') {
      const r = interpolateString(node, lookup);
      if (r.kind === 'ok') return r.value;
      const dotted = joinPath(path);
      if (r.kind === 'unset') {
        unset.set(dotted, r.name);
      } else {
        problems.push({
          path: dotted,
          message: r.message,
          ...(r.unreadableFile ? { unreadableFile: true } : {}),
        });
      }
      // Left undefined so that the schema decides whether the value was needed.
      return undefined;
    }
    if (Array.isArray(node)) return node.map((item, idx) => walk(item, [...path, idx]));
    if (node !== null && typeof node === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) {
        // defineProperty keeps a `__proto__` key an ordinary (and therefore reported) key.
        Object.defineProperty(copy, k, {
          value: walk(v, [...path, k]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
    return node;
  };

  return { value: walk(tree, []), unset, problems };
}

/** An account key written as literal text rather than through a `${NAME}` reference. */
export function isPlainTextKey(key: unknown): boolean {
  return typeof key === 'string' && key !== '' && !/\$\{[A-Za-z_]/.test(key.replaceAll('$${', ''));
}

/** The variable a key is read from when it is exactly `${NAME}` (or `${NAME:-}`). */
export function keyVariable(key: unknown): string | undefined {
  const m = typeof key === 'string' ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-)?\}$/.exec(key.trim()) : null;
  return m?.[1];
}
