// The simulator's HTTP server: auth, plan, rate limit, faults, routing, in the order the real
// upstream is assumed to check them, over node:http so tests exercise real sockets. What each
// endpoint answers is in replies.ts; how a reply goes out, faults included, is in send.ts.

import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RawEndpoint } from '../api/endpoints.js';
import { isIsoDate, utcDate } from '../util/time.js';
import { type AccountState, buildAccounts, hasApiAccess } from './accounts.js';
import { DataChanges } from './changes.js';
import { brandsList, me } from './data.js';
import { applyEchoKey, FaultBook, type FaultRule } from './faults.js';
import { rngFor } from './random.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { errorReply, faultStatusReply, ok, type Reply, workspaceReply } from './replies.js';
import { API_PREFIX, bearerKey, parseQuery, parseRoute, type Route } from './route.js';
import { pause, sendReply } from './send.js';
import { reshape } from './shapes.js';
import type { RequestLogEntry, SimulatedAccount, Simulator, SimulatorOptions } from './types.js';

/** The reply decided for a request, and the scripted fault to apply to it, if any. */
interface Outcome {
  reply: Reply;
  fault?: FaultRule;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  if (options.today !== undefined && !isIsoDate(options.today)) {
    throw new Error(`today must be a date as YYYY-MM-DD, got "${options.today}"`);
  }
  const upstream = new Upstream(options);
  const server = createServer((req, res) => {
    upstream.handle(req, res).catch(() => res.destroy());
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, host, options.port ?? 0);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return simulatorHandle(upstream, server, `http://${urlHost}:${port}${API_PREFIX}`, port);
}

/** Resolves with the port once listening; rejects when the port cannot be had. */
async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Callers get copies of the accounts, so editing them cannot change what the server accepts. */
function simulatorHandle(upstream: Upstream, server: Server, url: string, port: number): Simulator {
  const accounts: SimulatedAccount[] = upstream.accounts.map(({ name, plan, keys, workspaceIds }) => ({
    name,
    plan,
    keys: [...keys],
    workspaceIds: [...workspaceIds],
  }));
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    accounts,
    log: upstream.log,
    revokeKey(key) {
      upstream.revoked.add(key);
    },
    setPlan(name, plan) {
      upstream.setPlan(name, plan);
      const shown = accounts.find((a) => a.name === name);
      if (shown) shown.plan = plan;
    },
    addFault(rule) {
      upstream.faults.add(rule);
    },
    clearFaults() {
      upstream.faults.clear();
    },
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        upstream.closing.abort();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** The simulated upstream between requests: accounts and keys, the limiter, scripted faults, the log. */
class Upstream {
  readonly seed: number;
  readonly accounts: AccountState[];
  readonly log: RequestLogEntry[] = [];
  readonly revoked = new Set<string>();
  readonly faults: FaultBook;
  readonly changes: DataChanges;
  readonly closing = new AbortController();
  private readonly byKey = new Map<string, { account: AccountState; index: number }>();
  private readonly limiter = new SlidingWindowLimiter();
  private seq = 0;

  constructor(private readonly options: SimulatorOptions) {
    this.seed = options.seed ?? 1;
    this.accounts = buildAccounts(options, this.seed);
    for (const account of this.accounts) {
      for (const [index, key] of account.keys.entries()) this.byKey.set(key, { account, index });
    }
    this.faults = new FaultBook(options.faults ?? []);
    this.changes = new DataChanges(options.changes ?? []);
    // Every delayed response listens for close (and lets go when sent): no cap on their number.
    setMaxListeners(0, this.closing.signal);
  }

  setPlan(name: string, plan: string): void {
    const account = this.accounts.find((a) => a.name === name);
    if (!account) throw new Error(`no simulated account named "${name}"`);
    account.plan = plan;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrival = performance.now();
    const { entry, route } = this.logArrival(req, arrival);
    // The API takes no request body; drain it so keep-alive sockets stay usable.
    req.resume();
    let outcome: Outcome;
    try {
      outcome = this.decide(req, entry, route, arrival);
    } catch {
      outcome = { reply: errorReply(500, 'internal', 'simulator error') };
    }
    if (outcome.fault) entry.fault = outcome.fault.kind;
    await pause(this.latencyFor(entry.seq), this.closing.signal);
    if (this.closing.signal.aborted || res.destroyed) return;
    if (outcome.fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    await sendReply(res, entry, outcome, this.closing.signal);
  }

  /** Appends the request to the log as it arrived; the answer fills in the rest of the entry. */
  private logArrival(req: IncomingMessage, arrival: number): { entry: RequestLogEntry; route: Route } {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const rawPath = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const route = parseRoute(rawPath);
    const entry: RequestLogEntry = {
      seq: ++this.seq,
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
    this.log.push(entry);
    return { entry, route };
  }

  private latencyFor(n: number): number {
    const l = this.options.latencyMs ?? 0;
    return typeof l === 'number' ? l : rngFor(this.seed, 'latency', n).int(l.min, l.max);
  }

  private decide(req: IncomingMessage, entry: RequestLogEntry, route: Route, arrival: number): Outcome {
    // Outside /api/v1 there is nothing to protect, so say where the API is instead of asking for a key.
    if (route.problem === 'outside-prefix') {
      return { reply: errorReply(404, 'not_found', `no such path; the API is served under ${API_PREFIX}`) };
    }
    const caller = this.authenticate(req, entry);
    if ('reply' in caller) return caller;
    const { account } = caller;
    const refusal = this.refusal(account, arrival);
    if (refusal) return { reply: refusal };
    const fault = this.faults.take({
      account: account.name,
      endpoint: route.endpoint,
      brandId: route.brandId,
    });
    if (fault?.kind === 'status') return { reply: faultStatusReply(fault), fault };
    const reply = this.serve(req.method, route, account, entry.query);
    // Here, not in send.ts with the other body faults: only the request knows the key.
    if (fault?.kind === 'echo-key' && reply.status === 200) applyEchoKey(reply.body, bearerKey(req) ?? '');
    return { reply, fault };
  }

  /** The key's account, logged by name and key index (never the key), also when the key is revoked. */
  private authenticate(req: IncomingMessage, entry: RequestLogEntry): { account: AccountState } | Outcome {
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
    const holder = this.byKey.get(key);
    if (holder) {
      entry.account = holder.account.name;
      entry.keyIndex = holder.index;
    }
    if (!holder || this.revoked.has(key)) {
      return { reply: errorReply(401, 'unauthorized', 'the API key is unknown or has been revoked') };
    }
    return { account: holder.account };
  }

  /** 403 for a plan without API access, else 429 over the limit; a refused plan uses none of the limit. */
  private refusal(account: AccountState, arrival: number): Reply | undefined {
    if (!hasApiAccess(account.plan)) {
      return errorReply(
        403,
        'forbidden',
        `the ${account.plan} plan has no API access; the API is available on the Agency and Concierge plans`,
      );
    }
    const admission = this.limiter.admit(account.name, account.limit, arrival);
    if (admission.ok) return undefined;
    return errorReply(
      429,
      'rate_limited',
      `rate limit of ${account.limit.requests} requests per ${account.limit.windowMs / 1000} s exceeded`,
      { 'retry-after': this.retryAfterHeader(admission.retryAfterMs) },
    );
  }

  private retryAfterHeader(retryMs: number): string {
    if (this.options.retryAfterFormat === 'http-date') {
      return new Date(Math.ceil((Date.now() + retryMs) / 1000) * 1000).toUTCString();
    }
    return String(Math.max(1, Math.ceil(retryMs / 1000)));
  }

  private serve(
    method: string | undefined,
    route: Route,
    account: AccountState,
    query: Record<string, string>,
  ): Reply {
    if (method !== 'GET') {
      return errorReply(405, 'method_not_allowed', 'the API is read-only: only GET is supported', {
        allow: 'GET',
      });
    }
    if (route.problem === 'bad-encoding')
      return errorReply(400, 'bad_request', 'malformed percent-encoding in path');
    if (route.endpoint === null) return errorReply(404, 'not_found', 'no such endpoint');
    const today = this.options.today ?? utcDate(new Date());
    if (route.endpoint === 'me') return ok(this.meBody(account));
    const ids = account.workspaceIds;
    if (route.endpoint === 'brands') {
      const list = brandsList(this.seed, account.name, this.changes.listed(account.name, ids), today);
      const data = list.data.map((w) =>
        this.shaped('brands', this.changes.apply(account.name, ids, w.id, 'brands', w)),
      );
      return ok({ ...list, data });
    }
    const brandId = route.brandId as string;
    // Foreign ids get the same 404 as unknown ones, so a key cannot probe other accounts.
    if (!account.owned.has(brandId)) return errorReply(404, 'not_found', 'workspace not found');
    const ref = { seed: this.seed, account: account.name, workspaceId: brandId };
    const reply = workspaceReply(ref, route.endpoint, query, today);
    if (reply.status !== 200) return reply;
    const changed = this.changes.apply(account.name, ids, brandId, route.endpoint, reply.body);
    return { ...reply, body: this.shaped(route.endpoint, changed) };
  }

  private shaped(endpoint: RawEndpoint, body: unknown): unknown {
    return reshape(this.options.shape ?? 'assumed', endpoint, body);
  }

  private meBody(account: AccountState): unknown {
    return me({
      seed: this.seed,
      account: account.name,
      plan: account.plan,
      apiAccess: hasApiAccess(account.plan),
      limit: account.limit,
      requestsInWindow: this.limiter.inWindow(account.name, account.limit.windowMs),
      workspaces: account.workspaceIds.length,
    });
  }
}
