// Environment interpolation runs on the parsed YAML tree rather than on the raw text, so an
// environment value can only ever become a string scalar: it cannot add keys, lists or
// documents to the configuration, whatever characters it contains.

export interface InterpolationProblem {
  path: string;
  message: string;
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
  | { kind: 'bad'; message: string };

/**
 * Expands `${NAME}` and `${NAME:-default}` in one string; `$${` yields a literal `${`.
 * As in POSIX shells, `:-` also applies when the variable is set but empty.
 */
export function interpolateString(input: string, env: NodeJS.ProcessEnv): StringResult {
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
    const value = env[name];
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

export function interpolateEnv(tree: unknown, env: NodeJS.ProcessEnv): InterpolationResult {
  const unset = new Map<string, string>();
  const problems: InterpolationProblem[] = [];

  const walk = (node: unknown, path: PropertyKey[]): unknown => {
    if (typeof node === 'string') {
      const r = interpolateString(node, env);
      if (r.kind === 'ok') return r.value;
      const dotted = joinPath(path);
      if (r.kind === 'unset') {
        unset.set(dotted, r.name);
      } else {
        problems.push({ path: dotted, message: r.message });
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

/** Paths of account keys written as literal text rather than through a `${NAME}` reference. */
export function plainTextKeys(tree: unknown): string[] {
  const accounts = (tree as { accounts?: unknown } | null)?.accounts;
  if (!Array.isArray(accounts)) return [];
  const out: string[] = [];
  accounts.forEach((a: unknown, i) => {
    const key = (a as { apiKey?: unknown } | null)?.apiKey;
    if (typeof key === 'string' && key !== '' && !/\$\{[A-Za-z_]/.test(key.replaceAll('$${', ''))) {
      out.push(`accounts.${i}.apiKey`);
    }
  });
  return out;
}
