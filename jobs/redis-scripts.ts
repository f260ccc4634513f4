// Every Lua script visync runs, defined on a connection in one place, as BullMQ does with its own
// (loadCommands in its RedisConnection). ioredis' defineCommand sends EVAL the first time on each
// socket and EVALSHA after; a server that lost its script cache (a restart, SCRIPT FLUSH, a failover,
// another Cluster node) answers NOSCRIPT and ioredis sends the script again: no caller handles it.
// The scripts live beside what they serve (jobs/lua/); a name is unique across them all.
import type { Redis } from 'ioredis';
import { BUDGET_SCRIPTS } from './lua/budget.js';
import { LEDGER_SCRIPTS } from './lua/ledger.js';
import { LOAD_BATCH_SCRIPTS } from './lua/load-batches.js';
import { LOCK_SCRIPTS } from './lua/locks.js';

/** A script; without numberOfKeys its caller passes the number of keys first (a variable list). */
interface ScriptDef {
  readonly numberOfKeys?: number;
  readonly lua: string;
}

export const SCRIPTS = {
  ...BUDGET_SCRIPTS,
  ...LEDGER_SCRIPTS,
  ...LOAD_BATCH_SCRIPTS,
  ...LOCK_SCRIPTS,
} as const satisfies Record<string, ScriptDef>;

export type ScriptName = keyof typeof SCRIPTS;
type ScriptArg = string | number | Buffer;
export type ScriptedRedis = Redis & Record<ScriptName, (...args: ScriptArg[]) => Promise<unknown>>;

/** Connections whose scripts are defined: defining them is done once per connection. */
const defined = new WeakSet<Redis>();

/** `redis` with every script as a command (a Cluster client too: each script keeps to one slot). */
export function scripted(redis: Redis): ScriptedRedis {
  if (!defined.has(redis)) {
    for (const [name, def] of Object.entries(SCRIPTS) as [string, ScriptDef][]) {
      if (!(name in redis)) redis.defineCommand(name, def);
    }
    defined.add(redis);
  }
  return redis as ScriptedRedis;
}
