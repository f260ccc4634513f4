// Scripted faults: rules say which requests misbehave and how, so tests and benchmarks can
// reproduce the failures a real upstream shows (5xx bursts, resets, slow or broken bodies, drift).
import { RAW_ENDPOINTS, type RawEndpoint } from '../api/endpoints.js';

const FAULT_KINDS = [
  'status',
  'reset',
  'slow-body',
  'huge-body',
  'malformed-json',
  'wrong-content-type',
  'extra-fields',
  'missing-fields',
  'short-list',
  'echo-key',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
  account?: string;
  endpoint?: RawEndpoint;
  brandId?: string;
  /** Skip the first N matching requests (default 0). */
  after?: number;
  /** Apply to this many matching requests after that (default 1; Infinity for always). */
  times?: number;
  kind: FaultKind;
  /** For 'status': 500, 502, 503, 429, ... */
  status?: number;
  /** For 'status': a number is sent as delta-seconds; a string is the literal header value. */
  retryAfter?: number | string;
  /** For 'slow-body': pause between body chunks (default 200 ms). */
  delayMs?: number;
  /** For 'slow-body': bytes per chunk (default: the body in 4 chunks); 1 makes it trickle. */
  chunkBytes?: number;
  /** For 'huge-body': size of the valid JSON body sent instead of the normal one (default 200 MiB). */
  bytes?: number;
  /** For 'extra-fields' / 'missing-fields': field names, dotted for nested ones ('latest_score.share_of_voice'). */
  fields?: string[];
  /**
   * For 'short-list': records a list answer keeps (default half, rounded up); its `count` still
   * says how many there are, as an upstream paging the list would.
   */
  records?: number;
}

export interface FaultTarget {
  account: string;
  endpoint: RawEndpoint | null;
  brandId: string | null;
}

export const DEFAULT_SLOW_BODY_DELAY_MS = 200;
export const DEFAULT_HUGE_BODY_BYTES = 200 * 1024 * 1024;
const DEFAULT_EXTRA_FIELDS = ['unexpected_field'];

/**
 * Fields removed by 'missing-fields' when the rule names none: one field per endpoint that a
 * normaliser plausibly relies on, nested where the spec documents nesting.
 */
const DEFAULT_MISSING_FIELDS: Record<RawEndpoint, string[]> = {
  me: ['usage'],
  brands: ['latest_score.share_of_voice'],
  brand: ['latest_score.share_of_voice'],
  visibility: ['share_of_voice'],
  recommendations: ['impact_score'],
  prompts: ['latest_position'],
  'buyer-intent': ['why_you_lose'],
  reputation: ['flags'],
};

/** Checks a rule from user input (a --faults file, addFault) and says what is wrong with it. */
export function validateFaultRule(input: unknown, where = 'fault rule'): FaultRule {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new Error(`${where}: expected an object`);
  }
  const rule = { ...(input as Record<string, unknown>) };
  if (!FAULT_KINDS.includes(rule.kind as FaultKind)) {
    throw new Error(`${where}: kind must be one of ${FAULT_KINDS.join(', ')}`);
  }
  if (rule.endpoint !== undefined && !RAW_ENDPOINTS.includes(rule.endpoint as RawEndpoint)) {
    throw new Error(`${where}: endpoint must be one of ${RAW_ENDPOINTS.join(', ')}`);
  }
  for (const key of ['account', 'brandId'] as const) {
    if (rule[key] !== undefined && typeof rule[key] !== 'string')
      throw new Error(`${where}: ${key} must be a string`);
  }
  // JSON cannot say Infinity, so files may write "Infinity" or null for "every matching request".
  if (rule.times === 'Infinity' || rule.times === null) rule.times = Number.POSITIVE_INFINITY;
  for (const key of ['after', 'times', 'delayMs', 'chunkBytes', 'bytes', 'records'] as const) {
    const v = rule[key];
    if (v !== undefined && (typeof v !== 'number' || Number.isNaN(v) || v < 0)) {
      throw new Error(`${where}: ${key} must be a number >= 0`);
    }
  }
  if (rule.chunkBytes !== undefined && !Number.isInteger(rule.chunkBytes as number)) {
    throw new Error(`${where}: chunkBytes must be a whole number of bytes`);
  }
  if (rule.records !== undefined && !Number.isInteger(rule.records as number)) {
    throw new Error(`${where}: records must be a whole number`);
  }
  if (rule.kind === 'status') {
    const s = rule.status;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 100 || s > 599) {
      throw new Error(`${where}: a 'status' fault needs status, an HTTP status code such as 503`);
    }
  }
  if (
    rule.retryAfter !== undefined &&
    typeof rule.retryAfter !== 'number' &&
    typeof rule.retryAfter !== 'string'
  ) {
    throw new Error(`${where}: retryAfter must be a number of seconds or a header string`);
  }
  if (rule.fields !== undefined) {
    if (!Array.isArray(rule.fields) || rule.fields.some((f) => typeof f !== 'string' || f === '')) {
      throw new Error(`${where}: fields must be an array of field names`);
    }
  }
  return rule as unknown as FaultRule;
}

function matches(rule: FaultRule, target: FaultTarget): boolean {
  return (
    (rule.account === undefined || rule.account === target.account) &&
    (rule.endpoint === undefined || rule.endpoint === target.endpoint) &&
    (rule.brandId === undefined || rule.brandId === target.brandId)
  );
}

/** The active rules and how many requests each has matched so far. */
export class FaultBook {
  private entries: { rule: FaultRule; seen: number }[] = [];

  constructor(rules: readonly FaultRule[] = []) {
    for (const rule of rules) this.add(rule);
  }

  add(rule: FaultRule): void {
    this.entries.push({ rule: validateFaultRule(rule), seen: 0 });
  }

  clear(): void {
    this.entries = [];
  }

  /**
   * Counts the request against every rule it matches (each rule keeps its own count, so rules
   * do not shift each other's windows) and returns the first rule whose window covers it.
   */
  take(target: FaultTarget): FaultRule | undefined {
    let chosen: FaultRule | undefined;
    for (const entry of this.entries) {
      if (!matches(entry.rule, target)) continue;
      const n = entry.seen++;
      const after = entry.rule.after ?? 0;
      const times = entry.rule.times ?? 1;
      if (chosen === undefined && n >= after && n - after < times) chosen = entry.rule;
    }
    return chosen;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!isRecord(next)) {
      const created: Record<string, unknown> = {};
      node[key] = created;
      node = created;
    } else node = next;
  }
  node[keys[keys.length - 1] as string] = value;
}

function deletePath(target: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  let node: unknown = target;
  for (const key of keys.slice(0, -1)) {
    node = isRecord(node) ? node[key] : undefined;
  }
  if (isRecord(node)) delete node[keys[keys.length - 1] as string];
}

/**
 * Applies an 'extra-fields' or 'missing-fields' rule to a success body: to every record of a
 * `data` array when there is one, else to the top-level object. Mutates and returns `body`.
 */
export function applyFieldFault(body: unknown, rule: FaultRule, endpoint: RawEndpoint | null): unknown {
  if (!isRecord(body)) return body;
  const records = Array.isArray(body.data) ? body.data.filter(isRecord) : [body];
  if (rule.kind === 'extra-fields') {
    const fields = rule.fields ?? DEFAULT_EXTRA_FIELDS;
    for (const record of records) {
      for (const field of fields) setPath(record, field, `simulated extra value for ${field}`);
    }
  } else if (rule.kind === 'missing-fields') {
    const fields = rule.fields ?? (endpoint ? DEFAULT_MISSING_FIELDS[endpoint] : []);
    for (const record of records) {
      for (const field of fields) deletePath(record, field);
    }
  }
  return body;
}

/**
 * Applies a 'short-list' rule to a list answer: `data` cut to `rule.records` records, `count`
 * left at the full number (what a paged list that returns page one only looks like).
 */
export function applyShortList(body: unknown, rule: FaultRule): unknown {
  if (!isRecord(body) || !Array.isArray(body.data)) return body;
  const keep = rule.records ?? Math.ceil(body.data.length / 2);
  body.count = body.data.length;
  body.data = body.data.slice(0, keep);
  return body;
}

/**
 * Applies an 'echo-key' rule: the caller's API key in `key.value`, as an upstream that shows the
 * key it was called with would (to every record of a `data` array, else to the object).
 */
export function applyEchoKey(body: unknown, apiKey: string): unknown {
  if (!isRecord(body)) return body;
  const records = Array.isArray(body.data) ? body.data.filter(isRecord) : [body];
  for (const record of records) record.key = { value: apiKey, note: `shown once: ${apiKey}` };
  return body;
}

/** A body cut in half: still starts like JSON, can never parse (the closing brace is gone). */
export function truncateBody(bytes: Buffer): Buffer {
  return bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2)));
}

/**
 * The pieces of a 'huge-body' answer: a valid JSON object `{"padding":"xxx…"}` of exactly `total`
 * bytes (at least 16), produced piece by piece so that the simulator never holds it in memory.
 */
export function* hugeBodyChunks(total: number, chunk = 64 * 1024): Generator<Buffer> {
  const head = Buffer.from('{"padding":"');
  const tail = Buffer.from('"}');
  yield head;
  let left = Math.max(0, total - head.length - tail.length);
  const filler = Buffer.alloc(Math.min(chunk, Math.max(left, 1)), 'x');
  while (left > 0) {
    const n = Math.min(left, filler.length);
    yield filler.subarray(0, n);
    left -= n;
  }
  yield tail;
}
