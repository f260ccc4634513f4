// Who is sending a report's mail right now (docs/reports.md, "Exactly once"): a claim taken before a
// recipient's send and given back after it, so two workers, or a worker and `visync report send`,
// or two `report send`s, never mail one recipient at the same time. In Redis when it is configured
// (jobs/redis-claims.ts), else in the object store itself (an object created only if absent).
//
// A claim names its holder (host, pid, start) and lasts a short lease. A holder that died (a
// process of this host that no longer runs) is taken over at once; another host's holder only
// when its lease ran out, which is bounded by a send's own bound (SEND_CLAIM_SECONDS).
import { hostname } from 'node:os';
import type { ObjectStore } from '../../sinks/object-store.js';
import { readJsonObject } from '../../sinks/object-store.js';
import { encodeSegment } from '../../util/path-segment.js';
import { HOST_MARK, processGone } from '../../util/process-owner.js';

/**
 * Claims across processes (jobs/redis-claims.ts: Redis SET NX with a TTL, or storeClaims below: an
 * object created only if absent in the store). `whileAlive`: the claim is a lock, taken over at once
 * when its holder is a process of this host that died; without it a claim is a once-marker kept for
 * its whole TTL. Report sends and the brand-watch digest take them.
 */
export interface Claims {
  take(key: string, ttlSeconds: number, o?: { whileAlive?: boolean }): Promise<boolean>;
  release(key: string): Promise<void>;
}

export interface ClaimOwner {
  /** HOST_MARK: a pid is judged only on its own host. */
  host: string;
  /** For people reading a claim: the host's name. */
  host_name: string;
  pid: number;
  /** When this process started: tells a reused pid apart in a person's eyes. */
  started_at: string;
  /** The worker's job, when a worker holds it. */
  by?: string;
  expires_at?: string;
}

const STARTED_AT = new Date(Date.now() - process.uptime() * 1000).toISOString();

export function currentOwner(by?: string): ClaimOwner {
  return {
    host: HOST_MARK,
    host_name: hostname(),
    pid: process.pid,
    started_at: STARTED_AT,
    ...(by ? { by } : {}),
  };
}

export function sameOwner(a: ClaimOwner, b: ClaimOwner): boolean {
  return a.host === b.host && a.pid === b.pid && a.started_at === b.started_at;
}

/**
 * A claim whose holder is gone: a process of this host that no longer runs, or a lease that ran
 * out. A holder on another host, still within its lease, is alive as far as anyone here can tell.
 */
export function holderGone(held: Partial<ClaimOwner> | undefined, now = Date.now()): boolean {
  if (!held || typeof held.pid !== 'number' || typeof held.host !== 'string') return true;
  if (held.host === HOST_MARK && held.pid !== process.pid && processGone(held.pid)) return true;
  // This very pid, started at another time: an earlier process (a restarted container's pid 1).
  if (held.host === HOST_MARK && held.pid === process.pid && held.started_at !== STARTED_AT) return true;
  return held.expires_at !== undefined && Date.parse(held.expires_at) < now;
}

export function parseOwner(text: string | null | undefined): ClaimOwner | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as ClaimOwner;
    return typeof v === 'object' && v !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The key of a claim in the store: one object per claim, under claims/. */
export function storeClaimKey(key: string): string {
  return `claims/${encodeSegment(key)}.json`;
}

/**
 * Claims held in the object store: an object created only if absent (fs: link(2); S3: If-None-Match).
 * Undefined for a store that cannot create exclusively.
 */
export function storeClaims(store: ObjectStore, now: () => number = Date.now): Claims | undefined {
  const putIfAbsent = store.putIfAbsent?.bind(store);
  if (!putIfAbsent) return undefined;
  const mine = currentOwner();
  const json = { contentType: 'application/json' };
  return {
    async take(key, ttlSeconds, o) {
      const k = storeClaimKey(key);
      const body = () =>
        `${JSON.stringify({ ...mine, expires_at: new Date(now() + ttlSeconds * 1000).toISOString() })}\n`;
      if (await putIfAbsent(k, body(), json)) return true;
      const held = await readJsonObject<ClaimOwner>(store, k);
      if (held && sameOwner(held, mine)) return false;
      // A once-marker (not whileAlive) lapses only with its lease.
      const gone = o?.whileAlive
        ? holderGone(held, now())
        : !held || (held.expires_at !== undefined && Date.parse(held.expires_at) < now());
      if (!gone) return false;
      // Its holder died: taken over now. Two processes taking over at once both delete, and the
      // link decides between them; the send record read after the claim guards the rest.
      await store.delete(k);
      return putIfAbsent(k, body(), json);
    },
    async release(key) {
      const k = storeClaimKey(key);
      const held = await readJsonObject<ClaimOwner>(store, k);
      if (held && sameOwner(held, mine)) await store.delete(k);
    },
  };
}
