// What the doctor needs from the queue's Redis, as probes it is given: the Redis code lives in
// jobs/, a layer above the doctor (docs/development.md, "Code layout"), so `visync doctor`
// (src/cli/doctor.ts) wires in jobs/doctor-probes.ts and the doctor imports nothing from there.
import type { RateBudget } from '../../api/rate-budget.js';

export type RedisPersistence =
  | { kind: 'aof' }
  | { kind: 'rdb'; save: string }
  | { kind: 'off' }
  /** AOF is off and CONFIG is refused (managed Redis?), so RDB snapshots are unknown. */
  | { kind: 'unknown' };

export interface RedisDurability {
  /** maxmemory-policy; undefined when INFO does not have it and CONFIG is refused. */
  evictionPolicy: string | undefined;
  persistence: RedisPersistence;
}

/** One open connection to the configured Redis. */
export interface RedisProbe {
  /** host:port, never the user or password. */
  readonly address: string;
  /** The server's version as INFO gives it; `?` when it does not. */
  version(): Promise<string>;
  durability(): Promise<RedisDurability>;
  /** The accounts' shared request budget in this Redis, as the workers count it. */
  budget(o: { prefix: string; maxPauseMs: number }): RateBudget;
  close(): void;
}

export type RedisReach =
  | { ok: true; probe: RedisProbe }
  /** `reason` is the same words as every command that cannot reach Redis. */
  | {
      ok: false;
      address: string;
      reason: string /** Redis refused the user or password. */;
      loginRefused: boolean;
    };

export interface DoctorProbes {
  /** One connection attempt, bounded by `timeoutMs`, never retried. */
  connectRedis(url: string, timeoutMs: number): Promise<RedisReach>;
}
