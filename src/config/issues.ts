// Zod's issues as the config's own messages: one line per problem at its key path, "did you mean"
// for a misspelt key, what was expected (never the value, which may be a key), and nothing for an
// issue that is only the consequence of one already reported (an unset variable, a bad reference).
import type { z } from 'zod';
import type { ConfigIssue } from './config-error.js';
import { type InterpolationResult, joinPath } from './interpolate.js';

export function describeIssues(
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
export function fallbackMessage(iss: z.core.$ZodRawIssue): string | undefined {
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
