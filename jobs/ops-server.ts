// The worker's HTTP endpoint: /healthz (the process serves), /readyz (Redis answers and the
// workers run), /metrics (Prometheus text), /ui/ (Bull Board over the deployment's queues) and
// /review/ (the drafts of scheduled reports to approve, hold or send: ./review-page.ts).
// It binds before the workers start, so a taken port or missing credentials stop the worker
// before it takes a job; the workers are attached once they run.
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { basicAuth } from 'hono/basic-auth';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { DeploymentSnapshot } from '../src/metrics/prometheus.js';
import { recordLazily } from '../src/metrics/recorder.js';
import { VisyncError } from '../src/util/errors.js';
import { isLoopbackHost } from '../src/util/net.js';
import type { Queue } from './bullmq.js';
import type { Board } from './ops-board.js';
import { addReviewPage } from './review-page.js';
import type { Readiness, RunningWorker } from './worker-types.js';

/** BullMQ job states counted into visync_queue_jobs. */
const JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
] as const;

export interface Credentials {
  user: string;
  password: string;
}

/** An endpoint setting that cannot work: printed as one line, the worker does not start. */
export class EndpointError extends VisyncError {
  override name = 'EndpointError';
  get code() {
    return 'ops_endpoint' as const;
  }

  constructor(
    message: string,
    /** The address is taken (another worker on this machine, say). */
    readonly inUse = false,
  ) {
    super(message);
  }
}

export interface ListenAddress {
  host: string;
  port: number;
}

/** `HOST:PORT` (`[v6]:PORT` for IPv6) as validated by the config, or undefined for `off`. */
export function parseListen(listen: string): ListenAddress | undefined {
  if (listen === 'off') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^\s:]+)):(\d{1,5})$/.exec(listen);
  const port = Number(m?.[3]);
  if (!m || port > 65_535) {
    throw new EndpointError(
      `worker listen address "${listen}": expected HOST:PORT such as 127.0.0.1:9464, or off`,
    );
  }
  return { host: (m[1] ?? m[2]) as string, port };
}

/**
 * Basic-auth credentials from VISYNC_UI_USER and VISYNC_UI_PASSWORD. Required when the address is
 * not loopback (anyone on the network could otherwise read the queues and, unless read-only,
 * retry or delete jobs); applied on loopback too when set.
 */
export function endpointCredentials(addr: ListenAddress, env: NodeJS.ProcessEnv): Credentials | undefined {
  const user = env.VISYNC_UI_USER;
  const password = env.VISYNC_UI_PASSWORD;
  if (user && password) return { user, password };
  if (isLoopbackHost(addr.host) && !user && !password) return undefined;
  throw new EndpointError(
    user || password
      ? 'worker endpoint: set both VISYNC_UI_USER and VISYNC_UI_PASSWORD (basic auth), or neither on a loopback address'
      : `worker endpoint ${formatHostPort(addr)} is not a loopback address: set VISYNC_UI_USER and VISYNC_UI_PASSWORD (basic auth for /metrics, /readyz, /ui/ and /review/), or listen on 127.0.0.1`,
  );
}

/** The endpoint of `visync worker`: bound now, or undefined when `listen` is `off`. */
export async function startWorkerEndpoint(
  listen: string,
  o: { readOnly: boolean; logger: Logger; env?: NodeJS.ProcessEnv },
): Promise<OpsServer | undefined> {
  const address = parseListen(listen);
  if (!address) return undefined;
  const credentials = endpointCredentials(address, o.env ?? process.env);
  return startOpsServer({ address, credentials, readOnly: o.readOnly, logger: o.logger });
}

export interface OpsServerOptions {
  address: ListenAddress;
  credentials: Credentials | undefined;
  /** Bull Board shows the queues without retry, clean, pause or delete. */
  readOnly: boolean;
  logger: Logger;
  /** How long /readyz waits for Redis to answer PING, and /metrics for its queue and ledger reads. */
  redisTimeoutMs?: number;
}

export interface OpsServer {
  /** Base URL, with the port actually bound (port 0 picks a free one). */
  url: string;
  /** Serves this worker's readiness, queues and ledger from now on. */
  attach(worker: RunningWorker): Promise<void>;
  close(): Promise<void>;
}

export async function startOpsServer(o: OpsServerOptions): Promise<OpsServer> {
  const attached: Attached = {};
  const board = boardLoader(o.readOnly, attached);
  const app = opsApp(o, attached, board.load);
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false });
  await listenOn(server, o.address);
  const bound = server.address() as AddressInfo;
  const url = `http://${formatHostPort({ host: bound.address, port: bound.port })}`;

  return {
    url,
    async attach(w) {
      attached.worker = w;
      await board.showAttached();
    },
    async close() {
      attached.worker = undefined;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections (a browser, a scraper) would hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
    },
  };
}

/** The worker the endpoint reports on, once attached (the server binds before workers run). */
interface Attached {
  worker?: RunningWorker;
}

/** Bull Board, loaded on the first /ui request, and showing the attached worker's queues. */
function boardLoader(readOnly: boolean, attached: Attached) {
  // The queues the board shows, once a worker is attached: the shard queues every account's jobs
  // go to, and the load batches' queue (a batch that failed is found there).
  const showQueues = (b: Board) => {
    if (attached.worker) b.setQueues(deploymentQueues(attached.worker));
  };
  // Concurrent first requests share the load; a failed load is tried again by the next request.
  let board: Promise<Board> | undefined;
  const load = () => {
    board ??= import('./ops-board.js').then(
      ({ createBoard }) => {
        const b = createBoard({ readOnly });
        showQueues(b);
        return b;
      },
      (err: unknown) => {
        board = undefined;
        throw err;
      },
    );
    return board;
  };
  // A board still loading shows them itself; a failed load is reported by its request.
  const showAttached = async () => {
    await board?.then(showQueues, () => {});
  };
  return { load, showAttached };
}

/** The endpoint's routes: health, readiness, metrics and the board, behind basic auth if set. */
function opsApp(o: OpsServerOptions, attached: Attached, loadBoard: () => Promise<Board>): Hono {
  const redisTimeoutMs = o.redisTimeoutMs ?? 2000;
  // prom-client (and what its default metrics load) costs about 50 ms of CPU: loaded with the first
  // report or scrape rather than at start.
  const registry = recordLazily(async () => {
    const prometheus = await import('../src/metrics/prometheus.js');
    prometheus.enableMetrics();
    return prometheus;
  });
  // Not strict: /ui and /ui/ are the same page (the board's entry route is '/').
  const app = new Hono({ strict: false });
  // Before the auth middleware: a container health check calls it without credentials.
  app.get('/healthz', (c) => c.text('ok\n'));
  if (o.credentials) {
    app.use(
      '*',
      basicAuth({ username: o.credentials.user, password: o.credentials.password, realm: 'visync' }),
    );
  }
  app.get('/readyz', async (c) => {
    const r = await readiness(attached.worker, redisTimeoutMs);
    return r.ok ? c.text('ready\n') : c.text(`not ready: ${r.reason}\n`, 503);
  });
  app.get('/metrics', async (c) => {
    const { metricsText, METRICS_CONTENT_TYPE } = await registry();
    const worker = attached.worker;
    const snapshot = worker ? await deploymentSnapshot(worker, redisTimeoutMs) : undefined;
    return c.body(await metricsText(snapshot), 200, { 'content-type': METRICS_CONTENT_TYPE });
  });
  app.get('/', (c) => c.text('visync worker: /metrics /healthz /readyz /ui/ /review/\n'));
  addReviewPage(app, {
    user: o.credentials?.user,
    readOnly: o.readOnly,
    logger: o.logger,
    worker: () => attached.worker,
  });
  app.all('/ui/*', async (c) => (await loadBoard()).app.fetch(c.req.raw));
  app.onError((err, c) => {
    // The 401 of basic auth comes this way too.
    if (err instanceof HTTPException) return err.getResponse();
    o.logger.error({ path: c.req.path, err: err.message }, 'worker endpoint request failed');
    return c.text('internal error\n', 500);
  });
  return app;
}

/** Binds the server; a taken port or a bad address rejects with what to set instead. */
function listenOn(server: ReturnType<typeof createAdaptorServer>, address: ListenAddress): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'the address is in use (another worker here?)' : err.message;
      reject(
        new EndpointError(
          `worker endpoint cannot listen on ${formatHostPort(address)}: ${why}; set worker.listen or --listen to a free HOST:PORT, or off`,
          err.code === 'EADDRINUSE',
        ),
      );
    };
    server.once('error', onError);
    server.listen(address.port, address.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function formatHostPort(a: ListenAddress): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

/** Every queue of the deployment: the shards, then the load batches' queue and the reports' queue. */
function deploymentQueues(w: RunningWorker): Queue[] {
  return [...w.context.queues.all(), w.context.finishQueue, w.context.reportQueue];
}

/** The accounts of this worker's config and any other account that has a queue under the prefix. */
async function deploymentAccounts(w: RunningWorker): Promise<string[]> {
  const configured = w.context.config.accounts.map((a) => a.name);
  const registered = await w.context.queues.registered();
  return [...new Set([...configured, ...registered])].sort();
}

async function readiness(w: RunningWorker | undefined, timeoutMs: number): Promise<Readiness> {
  if (!w) return { ok: false, reason: 'starting: the workers are not running yet' };
  // The worker knows when its connections dropped or it is stopping; a PING also catches a Redis
  // that holds the connection open but does not answer.
  const worker = w.ready();
  if (!worker.ok) return worker;
  try {
    await withTimeout(w.context.redis.ping(), timeoutMs, `Redis did not answer PING within ${timeoutMs} ms`);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  return { ok: true };
}

/** Queue counts and last successes; undefined when Redis does not answer in time. */
async function deploymentSnapshot(
  w: RunningWorker,
  timeoutMs: number,
): Promise<DeploymentSnapshot | undefined> {
  const read = async (): Promise<DeploymentSnapshot> => {
    const accounts = await deploymentAccounts(w);
    const [counts, last] = await Promise.all([
      Promise.all(deploymentQueues(w).map((q) => q.getJobCounts(...JOB_STATES))),
      Promise.all(accounts.map((a) => w.context.ledger.lastSuccess(a))),
    ]);
    return {
      queueJobs: JOB_STATES.map((state) => ({
        state,
        count: counts.reduce((sum, c) => sum + (c[state] ?? 0), 0),
      })),
      lastSuccess: accounts.flatMap((account, i) => {
        const finished = last[i]?.finished_at;
        return finished ? [{ account, finishedAt: new Date(finished) }] : [];
      }),
    };
  };
  try {
    return await withTimeout(read(), timeoutMs, 'Redis did not answer');
  } catch {
    return undefined;
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
