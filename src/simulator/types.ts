// The simulator's shared types: its options, the accounts it serves, its request log and its
// handle. In their own module so the server (./server.ts) and the parts it is split into
// (./accounts.ts, ./send.ts, ./request-log.ts) all import them from below.
import type { RawEndpoint } from '../api/endpoints.js';
import type { DataChange } from './changes.js';
import type { FaultRule } from './faults.js';
import type { WindowLimit } from './rate-limit.js';
import type { Shape } from './shapes.js';

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
  /** Scripted changes of the generated data (src/simulator/changes.ts). */
  changes?: DataChange[];
  /** Record shapes served (src/simulator/shapes.ts): default 'assumed', our assumptions. */
  shape?: Shape;
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
