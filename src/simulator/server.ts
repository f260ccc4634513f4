// The simulator's HTTP server: auth, plan, rate limit, faults, routing, in the order the real
// upstream is assumed to check them, over node:http so tests exercise real sockets.

import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RawEndpoint } from '../api/endpoints.js';
import {
  BUYER_INTENT_DAYS,
  brandsList,
  buyerIntent,
  DEFAULT_RECOMMENDATION_STATUS,
  generatedApiKey,
  generatedWorkspaceId,
  isIsoDate,
  me,
  prompts,
  RECOMMENDATION_STATUSES,
  type RecommendationStatus,
  recommendations,
  reputation,
  VISIBILITY_DAYS,
  visibility,
  type WorkspaceRef,
  workspaceDetail,
} from './data.js';
import {
  applyFieldFault,
  DEFAULT_HUGE_BODY_BYTES,
  DEFAULT_SLOW_BODY_DELAY_MS,
  FaultBook,
  type FaultRule,
  hugeBodyChunks,
  truncateBody,
} from './faults.js';
import { rngFor } from './random.js';
import { SlidingWindowLimiter, type WindowLimit } from './rate-limit.js';

export interface SimAccountSpec {
  /** [a-z0-9-] */
  name: string;
  /** Default 'agency'; only 'agency' and 'concierge' have API access, anything else gets 403. */
  plan?: string;
  /** Explicit keys; default: keysPerAccount deterministic keys. */
  keys?: string[];
  /** A count (ids generated) or explicit ids (any characters, including '/', '..', spaces). */
  workspaces?: number | string[];
  limit?: WindowLimit;
}

export interface SimulatorOptions {
  seed?: number;
  accounts?: SimAccountSpec[];
  workspacesPerAccount?: number;
  keysPerAccount?: number;
  limit?: WindowLimit;
  retryAfterFormat?: 'seconds' | 'http-date';
  latencyMs?: number | { min: number; max: number };
  faults?: FaultRule[];
  /** YYYY-MM-DD; default: the current UTC date, read per request. */
  today?: string;
  host?: string;
  port?: number;
}

export interface RequestLogEntry {
  seq: number;
  /** Arrival time, epoch ms with sub-ms precision. */
  at: number;
  account: string | null;
  /** Index of the key within its account; the key itself is never logged. */
  keyIndex: number | null;
  method: string;
  /** As received, still percent-encoded, without the query. */
  path: string;
  query: Record<string, string>;
  endpoint: RawEndpoint | null;
  /** Decoded. */
  brandId: string | null;
  /** Status sent; 0 for a reset connection (and while the response is still being prepared). */
  status: number;
  fault?: string;
  bodySha256?: string;
  bytes?: number;
}

export interface SimulatedAccount {
  name: string;
  plan: string;
  keys: string[];
  workspaceIds: string[];
}

export interface Simulator {
  /** Base URL including the /api/v1 prefix. */
  url: string;
  port: number;
  accounts: SimulatedAccount[];
  /** Live array, appended in arrival order. */
  log: RequestLogEntry[];
  revokeKey(key: string): void;
  setPlan(account: string, plan: string): void;
  addFault(rule: FaultRule): void;
  clearFaults(): void;
  close(): Promise<void>;
}

export const API_PREFIX = '/api/v1';
export const PLANS_WITH_API_ACCESS = ['agency', 'concierge'];
export const DEFAULT_LIMIT: WindowLimit = { requests: 120, windowMs: 60_000 };

const JSON_TYPE = 'application/json; charset=utf-8';
const ACCOUNT_NAME = /^[a-z0-9-]+$/;

interface AccountState extends SimulatedAccount {
  limit: WindowLimit;
  owned: Set<string>;
}

type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'bad_request'
  | 'rate_limited'
  | 'internal'
  | 'method_not_allowed';

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function errorReply(
  status: number,
  code: ErrorCode,
  message: string,
  headers?: Record<string, string>,
): Reply {
  return { status, body: { error: { code, message } }, headers };
}

function codeForStatus(status: number): ErrorCode {
  const codes: Record<number, ErrorCode> = {
    400: 'bad_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    405: 'method_not_allowed',
    429: 'rate_limited',
  };
  return codes[status] ?? 'internal';
}

function hasApiAccess(plan: string): boolean {
  return PLANS_WITH_API_ACCESS.includes(plan.toLowerCase());
}

function buildAccounts(options: SimulatorOptions, seed: number): AccountState[] {
  const specs = options.accounts ?? [{ name: 'demo' }];
  const perAccount = options.workspacesPerAccount ?? 5;
  const keysPerAccount = options.keysPerAccount ?? 1;
  const seenKeys = new Set<string>();
  const seenNames = new Set<string>();
  return specs.map((spec) => {
    if (!ACCOUNT_NAME.test(spec.name)) throw new Error(`account name "${spec.name}" must match [a-z0-9-]+`);
    if (seenNames.has(spec.name)) throw new Error(`account "${spec.name}" is listed twice`);
    seenNames.add(spec.name);
    const keys =
      spec.keys ?? Array.from({ length: keysPerAccount }, (_, i) => generatedApiKey(seed, spec.name, i));
    for (const key of keys) {
      // Never echo the key: error messages may end up in CI logs.
      if (seenKeys.has(key))
        throw new Error(`account "${spec.name}": an API key is used by two accounts or twice`);
      seenKeys.add(key);
    }
    const ws = spec.workspaces ?? perAccount;
    const workspaceIds =
      typeof ws === 'number'
        ? Array.from({ length: ws }, (_, i) => generatedWorkspaceId(seed, spec.name, i))
        : [...ws];
    const owned = new Set(workspaceIds);
    if (owned.size !== workspaceIds.length)
      throw new Error(`account "${spec.name}": workspace ids must be unique`);
    return {
      name: spec.name,
      plan: spec.plan ?? 'agency',
      keys,
      workspaceIds,
      limit: spec.limit ?? options.limit ?? DEFAULT_LIMIT,
      owned,
    };
  });
}

interface Route {
  endpoint: RawEndpoint | null;
  brandId: string | null;
  /** Why the path cannot be served, when it cannot. */
  problem?: 'outside-prefix' | 'unknown' | 'bad-encoding';
}

const SUBRESOURCES: Record<string, RawEndpoint> = {
  visibility: 'visibility',
  recommendations: 'recommendations',
  prompts: 'prompts',
  'buyer-intent': 'buyer-intent',
  reputation: 'reputation',
};

/** Splits the raw path before decoding, so an id containing '%2F' stays one segment. */
export function parseRoute(rawPath: string): Route {
  if (rawPath !== API_PREFIX && !rawPath.startsWith(`${API_PREFIX}/`)) {
    return { endpoint: null, brandId: null, problem: 'outside-prefix' };
  }
  let segments: string[];
  try {
    segments = rawPath
      .slice(API_PREFIX.length + 1)
      .split('/')
      .map((s) => decodeURIComponent(s));
  } catch {
    return { endpoint: null, brandId: null, problem: 'bad-encoding' };
  }
  const [first, id, sub, ...rest] = segments;
  if (rest.length > 0) return { endpoint: null, brandId: null, problem: 'unknown' };
  if (first === 'me' && id === undefined) return { endpoint: 'me', brandId: null };
  if (first !== 'brands') return { endpoint: null, brandId: null, problem: 'unknown' };
  if (id === undefined) return { endpoint: 'brands', brandId: null };
  if (id === '') return { endpoint: null, brandId: null, problem: 'unknown' };
  if (sub === undefined) return { endpoint: 'brand', brandId: id };
  const endpoint = SUBRESOURCES[sub];
  return endpoint ? { endpoint, brandId: id } : { endpoint: null, brandId: null, problem: 'unknown' };
}

function parseQuery(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  // First occurrence wins, so `?days=7&days=400` is judged on 7, like most web frameworks.
  for (const [k, v] of new URLSearchParams(raw)) if (!(k in out)) out[k] = v;
  return out;
}

function parseDays(
  raw: string | undefined,
  range: { min: number; max: number; default: number },
): number | null {
  if (raw === undefined) return range.default;
  if (!/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  return n >= range.min && n <= range.max ? n : null;
}

function bearerKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

function utcToday(): string {
  return new Date().toISOString().slice(0, 10);
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = options.seed ?? 1;
  if (options.today !== undefined && !isIsoDate(options.today)) {
    throw new Error(`today must be a date as YYYY-MM-DD, got "${options.today}"`);
  }
  const accounts = buildAccounts(options, seed);
  const byName = new Map(accounts.map((a) => [a.name, a]));
  const byKey = new Map<string, { account: AccountState; index: number }>();
  for (const account of accounts) {
    for (const [index, key] of account.keys.entries()) byKey.set(key, { account, index });
  }
  const revoked = new Set<string>();
  const limiter = new SlidingWindowLimiter();
  const faults = new FaultBook(options.faults ?? []);
  const retryAfterFormat = options.retryAfterFormat ?? 'seconds';
  const log: RequestLogEntry[] = [];
  const closing = new AbortController();
  // Every delayed response listens for close (and lets go when sent): no cap on their number.
  setMaxListeners(0, closing.signal);
  let seq = 0;

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (ms <= 0 || closing.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        closing.signal.removeEventListener('abort', done);
        resolve();
      }
      closing.signal.addEventListener('abort', done, { once: true });
    });

  const latencyFor = (n: number): number => {
    const l = options.latencyMs ?? 0;
    return typeof l === 'number' ? l : rngFor(seed, 'latency', n).int(l.min, l.max);
  };

  const retryAfterHeader = (retryMs: number): string => {
    if (retryAfterFormat === 'http-date') {
      return new Date(Math.ceil((Date.now() + retryMs) / 1000) * 1000).toUTCString();
    }
    return String(Math.max(1, Math.ceil(retryMs / 1000)));
  };

  /** Decides the answer; returns the fault to apply to it as well, if any. */
  const decide = (
    req: IncomingMessage,
    entry: RequestLogEntry,
    route: Route,
    arrival: number,
  ): { reply: Reply; fault?: FaultRule } => {
    // Outside /api/v1 there is nothing to protect, so say where the API is instead of asking for a key.
    if (route.problem === 'outside-prefix') {
      return { reply: errorReply(404, 'not_found', `no such path; the API is served under ${API_PREFIX}`) };
    }
    const key = bearerKey(req);
    if (key === undefined) {
      return {
        reply: errorReply(
          401,
          'unauthorized',
          'missing API key: send the header Authorization: Bearer <API_KEY>',
        ),
      };
    }
    const holder = byKey.get(key);
    if (holder) {
      entry.account = holder.account.name;
      entry.keyIndex = holder.index;
    }
    if (!holder || revoked.has(key)) {
      return { reply: errorReply(401, 'unauthorized', 'the API key is unknown or has been revoked') };
    }
    const account = holder.account;
    if (!hasApiAccess(account.plan)) {
      return {
        reply: errorReply(
          403,
          'forbidden',
          `the ${account.plan} plan has no API access; the API is available on the Agency and Concierge plans`,
        ),
      };
    }
    const admission = limiter.admit(account.name, account.limit, arrival);
    if (!admission.ok) {
      return {
        reply: errorReply(
          429,
          'rate_limited',
          `rate limit of ${account.limit.requests} requests per ${account.limit.windowMs / 1000} s exceeded`,
          { 'retry-after': retryAfterHeader(admission.retryAfterMs) },
        ),
      };
    }
    const fault = faults.take({ account: account.name, endpoint: route.endpoint, brandId: route.brandId });
    if (fault?.kind === 'status') {
      const status = fault.status ?? 500;
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
      return {
        reply: errorReply(status, codeForStatus(status), `simulated fault: HTTP ${status}`, headers),
        fault,
      };
    }
    return { reply: serve(req, entry, route, account), fault };
  };

  const serve = (
    req: IncomingMessage,
    entry: RequestLogEntry,
    route: Route,
    account: AccountState,
  ): Reply => {
    if (req.method !== 'GET') {
      return errorReply(405, 'method_not_allowed', 'the API is read-only: only GET is supported', {
        allow: 'GET',
      });
    }
    if (route.problem === 'bad-encoding')
      return errorReply(400, 'bad_request', 'malformed percent-encoding in path');
    if (route.endpoint === null) return errorReply(404, 'not_found', 'no such endpoint');
    const today = options.today ?? utcToday();
    if (route.endpoint === 'me') {
      return {
        status: 200,
        body: me({
          seed,
          account: account.name,
          plan: account.plan,
          apiAccess: hasApiAccess(account.plan),
          limit: account.limit,
          requestsInWindow: limiter.inWindow(account.name, account.limit.windowMs),
          workspaces: account.workspaceIds.length,
        }),
      };
    }
    if (route.endpoint === 'brands') {
      return { status: 200, body: brandsList(seed, account.name, account.workspaceIds, today) };
    }
    const brandId = route.brandId as string;
    // Foreign ids get the same 404 as unknown ones, so a key cannot probe other accounts.
    if (!account.owned.has(brandId)) return errorReply(404, 'not_found', 'workspace not found');
    const ref: WorkspaceRef = { seed, account: account.name, workspaceId: brandId };
    const q = entry.query;
    switch (route.endpoint) {
      case 'brand':
        return { status: 200, body: workspaceDetail(ref, today) };
      case 'visibility': {
        const days = parseDays(q.days, VISIBILITY_DAYS);
        if (days === null) return errorReply(400, 'bad_request', 'days must be an integer from 1 to 365');
        return { status: 200, body: visibility(ref, today, days) };
      }
      case 'buyer-intent': {
        const days = parseDays(q.days, BUYER_INTENT_DAYS);
        if (days === null) return errorReply(400, 'bad_request', 'days must be an integer from 7 to 90');
        return { status: 200, body: buyerIntent(ref, today, days) };
      }
      case 'recommendations': {
        const status = q.status ?? DEFAULT_RECOMMENDATION_STATUS;
        if (status !== 'all' && !RECOMMENDATION_STATUSES.includes(status as RecommendationStatus)) {
          return errorReply(400, 'bad_request', 'status must be one of open, done, dismissed, all');
        }
        return { status: 200, body: recommendations(ref, today, status as RecommendationStatus | 'all') };
      }
      case 'prompts':
        return { status: 200, body: prompts(ref, today) };
      case 'reputation':
        return { status: 200, body: reputation(ref, today) };
    }
    return errorReply(404, 'not_found', 'no such endpoint');
  };

  /** Writes one piece, waiting while the socket is full; false once the client has gone. */
  const write = async (res: ServerResponse, piece: Buffer): Promise<boolean> => {
    if (res.destroyed || closing.signal.aborted) return false;
    if (res.write(piece)) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        closing.signal.removeEventListener('abort', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
      closing.signal.addEventListener('abort', done, { once: true });
    });
    return !res.destroyed && !closing.signal.aborted;
  };

  /** A valid JSON body of `fault.bytes`, streamed without a length; the log counts what was sent. */
  const sendHuge = async (res: ServerResponse, entry: RequestLogEntry, fault: FaultRule) => {
    entry.status = 200;
    entry.bytes = 0;
    const hash = createHash('sha256');
    res.writeHead(200, { 'content-type': JSON_TYPE });
    for (const piece of hugeBodyChunks(fault.bytes ?? DEFAULT_HUGE_BODY_BYTES)) {
      if (!(await write(res, piece))) return;
      hash.update(piece);
      entry.bytes += piece.length;
    }
    entry.bodySha256 = hash.digest('hex');
    res.end();
  };

  const send = async (res: ServerResponse, entry: RequestLogEntry, reply: Reply, fault?: FaultRule) => {
    if (fault?.kind === 'huge-body' && reply.status === 200) return sendHuge(res, entry, fault);
    let body = reply.body;
    if (fault && reply.status === 200 && (fault.kind === 'extra-fields' || fault.kind === 'missing-fields')) {
      body = applyFieldFault(body, fault, entry.endpoint);
    }
    let bytes: Buffer = Buffer.from(JSON.stringify(body), 'utf8');
    if (fault?.kind === 'malformed-json') bytes = truncateBody(bytes);
    const contentType = fault?.kind === 'wrong-content-type' ? 'text/html; charset=utf-8' : JSON_TYPE;
    entry.status = reply.status;
    entry.bytes = bytes.length;
    entry.bodySha256 = createHash('sha256').update(bytes).digest('hex');
    res.writeHead(reply.status, {
      'content-type': contentType,
      'content-length': String(bytes.length),
      ...reply.headers,
    });
    if (fault?.kind !== 'slow-body') {
      res.end(bytes);
      return;
    }
    const size = fault.chunkBytes ?? Math.ceil(bytes.length / 4);
    for (let i = 0; i < bytes.length; i += size) {
      if (i > 0) await sleep(fault.delayMs ?? DEFAULT_SLOW_BODY_DELAY_MS);
      if (!(await write(res, bytes.subarray(i, i + size)))) return;
    }
    res.end();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const arrival = performance.now();
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const rawPath = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const route = parseRoute(rawPath);
    const entry: RequestLogEntry = {
      seq: ++seq,
      at: performance.timeOrigin + arrival,
      account: null,
      keyIndex: null,
      method: req.method ?? 'GET',
      path: rawPath,
      query: parseQuery(q === -1 ? '' : rawUrl.slice(q + 1)),
      endpoint: route.endpoint,
      brandId: route.brandId,
      status: 0,
    };
    log.push(entry);
    // The API takes no request body; drain it so keep-alive sockets stay usable.
    req.resume();
    let outcome: { reply: Reply; fault?: FaultRule };
    try {
      outcome = decide(req, entry, route, arrival);
    } catch {
      outcome = { reply: errorReply(500, 'internal', 'simulator error') };
    }
    if (outcome.fault) entry.fault = outcome.fault.kind;
    await sleep(latencyFor(entry.seq));
    if (closing.signal.aborted || res.destroyed) return;
    if (outcome.fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    await send(res, entry, outcome.reply, outcome.fault);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  const publicAccounts: SimulatedAccount[] = accounts.map(({ name, plan, keys, workspaceIds }) => ({
    name,
    plan,
    keys: [...keys],
    workspaceIds: [...workspaceIds],
  }));
  let closed: Promise<void> | undefined;

  return {
    url: `http://${urlHost}:${port}${API_PREFIX}`,
    port,
    accounts: publicAccounts,
    log,
    revokeKey(key) {
      revoked.add(key);
    },
    setPlan(name, plan) {
      const account = byName.get(name);
      if (!account) throw new Error(`no simulated account named "${name}"`);
      account.plan = plan;
      const shown = publicAccounts.find((a) => a.name === name);
      if (shown) shown.plan = plan;
    },
    addFault(rule) {
      faults.add(rule);
    },
    clearFaults() {
      faults.clear();
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
