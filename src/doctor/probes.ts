// What the doctor needs from the queue's Redis, as probes it is given: the checks say what they
// ask of Redis, and `visync doctor` (src/cli/doctor.ts) wires in ./redis-probes.ts, built on the
// workers' own Redis code in jobs/.
import type { RedisDurability } from '../../jobs/redis-durability.js';
import type { RateBudget } from '../api/rate-budget.js';

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
