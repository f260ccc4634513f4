// Compares what a response holds with what we expect, field by field, and reports the difference as
// drift instead of failing: the spec shows few field names, so most of what we expect is assumed.
// A field that fails its check reads as null; the caller still builds its row from the record.
//
// It runs for every field of every record a run lands, so it allocates as little as it can: a leaf
// is a plain type test (zod's safeParse made a result object per value), an object spec keeps its
// field names, and a place in the body is spelled out only when something is reported there.
import type { DriftEntry } from '../records/manifest.js';
import { isIsoDate } from '../util/time.js';
import type { DriftKind } from './drift.js';

// ------------------------------------------------------------------------------------------------
// Specs: the fields we know, each with a plain type check (a Leaf); records may carry any other field.

export interface Leaf<T> {
  kind: 'leaf';
  /** Used in "expected <label>, got <type>". */
  label: string;
  /** The value as the row holds it, or undefined when it is not of this type. */
  check: (value: unknown) => T | undefined;
}

export interface Obj<F extends Fields> {
  kind: 'object';
  fields: F;
  /** Object.keys(fields), once. */
  keys: readonly string[];
  /** Fields whose absence is not drift: a recognised alternative shape leaves them out. */
  optional: ReadonlySet<string>;
}

export interface List<S extends Spec> {
  kind: 'list';
  item: S;
}

export type Fields = { [key: string]: Spec };
// biome-ignore lint/suspicious/noExplicitAny: a spec of any shape; Out<> recovers the precise type.
export type Spec = Leaf<any> | Obj<any> | List<any>;

/** What inspect() returns for a spec: the checked value, null where absent, null or of the wrong type. */
export type Out<S> =
  S extends Leaf<infer T>
    ? T | null
    : S extends Obj<infer F>
      ? { [K in keyof F]: Out<F[K]> } | null
      : S extends List<infer I>
        ? Out<I>[] | null
        : never;

function leaf<T>(label: string, check: (value: unknown) => T | undefined): Leaf<T> {
  return { kind: 'leaf', label, check };
}

export function obj<F extends Fields>(fields: F, optional: readonly (keyof F & string)[] = []): Obj<F> {
  return { kind: 'object', fields, keys: Object.keys(fields), optional: new Set(optional) };
}

export function list<S extends Spec>(item: S): List<S> {
  return { kind: 'list', item };
}

// Date.parse accepts almost anything ("March 7"); a timestamp must at least start like ISO 8601.
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/** The instant as UTC ISO (`...Z`, milliseconds), or null when it is not an ISO 8601 timestamp. */
export function toUtcTimestamp(value: string): string | null {
  if (!ISO_TIMESTAMP.test(value)) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export const f = {
  string: leaf('string', (v) => (typeof v === 'string' ? v : undefined)),
  number: leaf('number', (v) => (isFiniteNumber(v) ? v : undefined)),
  integer: leaf('integer', (v) => (Number.isSafeInteger(v) ? (v as number) : undefined)),
  boolean: leaf('boolean', (v) => (typeof v === 'boolean' ? v : undefined)),
  date: leaf('date (YYYY-MM-DD)', (v) => (typeof v === 'string' && isIsoDate(v) ? v : undefined)),
  timestamp: leaf('ISO 8601 timestamp', (v) =>
    typeof v === 'string' ? (toUtcTimestamp(v) ?? undefined) : undefined,
  ),
  strings: leaf('array of strings', (v) =>
    Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined,
  ),
  /** A map keyed by data (engine names): its keys are not fields, so none is "unknown". */
  map: leaf('object', (v) => (isRecord(v) ? v : undefined)),
  /**
   * Per-engine values (docs/simulator.md, "Recognised shapes"): a map engine -> score, or a list of
   * `{engine, score}`; rows.ts explodeScores reads both.
   */
  scores: leaf('object or array', (v) => (isRecord(v) || Array.isArray(v) ? (v as unknown) : undefined)),
  array: leaf('array', (v) => (Array.isArray(v) ? (v as unknown[]) : undefined)),
};

// ------------------------------------------------------------------------------------------------
// Where findings are recorded.

export interface Probe {
  endpoint: string;
  /** Prefix of every example: the workspace id, or the account for account-level calls. */
  origin: string;
  drift: DriftEntry[];
}

/** A place in the body: `generic` names it for folding (data[].x), `concrete` for the example (data[3].x). */
export interface Loc {
  readonly generic: string;
  readonly concrete: string;
}

const ROOT: Loc = { generic: '', concrete: '' };

/** A field or list item under `parent`, spelled out when read (only drift reports read it). */
class Place implements Loc {
  constructor(
    private readonly parent: Loc,
    private readonly step: string | number,
  ) {}

  get generic(): string {
    const up = this.parent.generic;
    if (typeof this.step === 'number') return `${up}[]`;
    return up ? `${up}.${this.step}` : this.step;
  }

  get concrete(): string {
    const up = this.parent.concrete;
    if (typeof this.step === 'number') return `${up}[${this.step}]`;
    return up ? `${up}.${this.step}` : this.step;
  }
}

export function child(loc: Loc, key: string): Loc {
  return new Place(loc, key);
}

export function item(loc: Loc, index: number): Loc {
  return new Place(loc, index);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function report(
  probe: Probe,
  kind: DriftKind,
  detail: string,
  loc: Loc | undefined,
  value?: unknown,
): void {
  const where = loc?.concrete ? `${probe.origin}: ${loc.concrete}` : probe.origin;
  const example = value === undefined ? where : `${where} = ${preview(value)}`;
  probe.drift.push({ endpoint: probe.endpoint, kind, detail, example });
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function label(spec: Spec): string {
  return spec.kind === 'leaf' ? spec.label : spec.kind;
}

function typeChange(probe: Probe, spec: Spec, value: unknown, loc: Loc): void {
  report(
    probe,
    'type_change',
    `${loc.generic || '(body)'}: expected ${label(spec)}, got ${typeName(value)}`,
    loc,
    value,
  );
}

/**
 * Checks `value` against `spec`, recording unknown fields, missing fields and type changes, and
 * returns the known fields that passed (null for the rest). null is never drift: every typed column
 * is NULLABLE, and "no value" is a legitimate answer.
 */
export function inspect<S extends Spec>(spec: S, value: unknown, probe: Probe, loc: Loc = ROOT): Out<S> {
  return inspectAny(spec, value, probe, loc) as Out<S>;
}

function inspectAny(spec: Spec, value: unknown, probe: Probe, loc: Loc): unknown {
  if (value === null || value === undefined) return null;
  if (spec.kind === 'leaf') {
    const checked = spec.check(value);
    if (checked !== undefined) return checked;
    typeChange(probe, spec, value, loc);
    return null;
  }
  if (spec.kind === 'list') {
    if (!Array.isArray(value)) {
      typeChange(probe, spec, value, loc);
      return null;
    }
    return value.map((v, i) => inspectAny(spec.item, v, probe, item(loc, i)));
  }
  if (!isRecord(value)) {
    typeChange(probe, spec, value, loc);
    return null;
  }
  const out: Record<string, unknown> = {};
  const fields = spec.fields as Fields;
  for (const key of spec.keys) {
    const at = child(loc, key);
    if (!Object.hasOwn(value, key)) {
      if (!spec.optional.has(key)) report(probe, 'missing_field', at.generic, at);
      out[key] = null;
    } else {
      out[key] = inspectAny(fields[key] as Spec, value[key], probe, at);
    }
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) {
      const at = child(loc, key);
      report(probe, 'unknown_field', at.generic, at, value[key]);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Envelopes: find the records in a body whatever shape it has, and say when the shape is not ours.

export interface Located {
  value: unknown;
  loc: Loc;
}

const LIST_ENVELOPE_KEYS = new Set(['data', 'count']);

function located(values: readonly unknown[], at: Loc): Located[] {
  return values.map((value, i) => ({ value, loc: item(at, i) }));
}

/** Top-level keys of an envelope other than the list: pagination hints would show up here. */
function envelopeExtras(body: Record<string, unknown>, listKey: string, probe: Probe): void {
  for (const key of Object.keys(body)) {
    if (key === listKey || LIST_ENVELOPE_KEYS.has(key)) continue;
    report(probe, 'unknown_field', key, { generic: key, concrete: key }, body[key]);
  }
}

function checkCount(body: Record<string, unknown>, length: number, probe: Probe): void {
  const at = { generic: 'count', concrete: 'count' };
  if (!Object.hasOwn(body, 'count')) {
    report(probe, 'missing_field', 'count', at);
  } else if (typeof body.count !== 'number' || !Number.isInteger(body.count)) {
    report(probe, 'type_change', `count: expected integer, got ${typeName(body.count)}`, at, body.count);
  } else if (body.count !== length) {
    report(probe, 'count_mismatch', 'count differs from the number of records', at, {
      count: body.count,
      records: length,
    });
  }
}

/**
 * Records of a list endpoint. Ours: `{data: [...], count}`. Also read: a bare array, a list under
 * another key (`items`, `results`), `{data: {...}}` and a bare record, each reported as drift.
 */
export function readList(body: unknown, probe: Probe): Located[] {
  if (Array.isArray(body)) {
    report(probe, 'unexpected_shape', 'bare array where {data, count} was expected', undefined);
    return located(body, ROOT);
  }
  if (!isRecord(body)) {
    report(
      probe,
      'unexpected_shape',
      `body is ${typeName(body)} where {data, count} was expected`,
      undefined,
      body,
    );
    return [];
  }
  if (Array.isArray(body.data)) {
    checkCount(body, body.data.length, probe);
    envelopeExtras(body, 'data', probe);
    return located(body.data, { generic: 'data', concrete: 'data' });
  }
  if (isRecord(body.data)) {
    report(probe, 'unexpected_shape', 'one object under data where a list was expected', undefined);
    envelopeExtras(body, 'data', probe);
    return [{ value: body.data, loc: { generic: 'data', concrete: 'data' } }];
  }
  const arrays = Object.keys(body).filter((k) => Array.isArray(body[k]));
  const listKey = arrays.length === 1 ? arrays[0] : undefined;
  if (listKey !== undefined && !Object.hasOwn(body, 'data')) {
    const records = body[listKey] as unknown[];
    report(probe, 'unexpected_shape', `list under "${listKey}" where "data" was expected`, undefined);
    if (Object.hasOwn(body, 'count')) checkCount(body, records.length, probe);
    envelopeExtras(body, listKey, probe);
    return located(records, { generic: listKey, concrete: listKey });
  }
  if (Object.keys(body).length === 0) {
    report(probe, 'unexpected_shape', 'empty object where {data, count} was expected', undefined);
    return [];
  }
  if (Object.hasOwn(body, 'data')) {
    report(probe, 'type_change', `data: expected array, got ${typeName(body.data)}`, ROOT, body.data);
    if (body.data === null) {
      envelopeExtras(body, 'data', probe);
      return [];
    }
  } else {
    report(probe, 'unexpected_shape', 'one object where {data, count} was expected', undefined);
  }
  // Nothing list-like: keep the body itself as the one record rather than lose it.
  return [{ value: body, loc: ROOT }];
}

/**
 * Records of a single-object endpoint (ours: the bare object). Also read: `{data: {...}}`, a list
 * (`{data: [...]}` or bare), each record kept and the shape reported.
 */
export function readObject(body: unknown, probe: Probe, knownKeys: readonly string[]): Located[] {
  if (Array.isArray(body)) {
    report(probe, 'unexpected_shape', 'array where one object was expected', undefined);
    return located(body, ROOT);
  }
  if (!isRecord(body)) {
    report(
      probe,
      'unexpected_shape',
      `body is ${typeName(body)} where one object was expected`,
      undefined,
      body,
    );
    return [];
  }
  if (knownKeys.some((k) => Object.hasOwn(body, k))) return [{ value: body, loc: ROOT }];
  if (isRecord(body.data)) {
    report(probe, 'unexpected_shape', 'object wrapped in {data: {...}}', undefined);
    envelopeExtras(body, 'data', probe);
    return [{ value: body.data, loc: { generic: 'data', concrete: 'data' } }];
  }
  if (Array.isArray(body.data)) {
    report(probe, 'unexpected_shape', 'list {data: [...]} where one object was expected', undefined);
    envelopeExtras(body, 'data', probe);
    return located(body.data, { generic: 'data', concrete: 'data' });
  }
  return [{ value: body, loc: ROOT }];
}
