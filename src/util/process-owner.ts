// Whose a temporary file or folder is: `<host>-<pid>` in its name, so a later process can tell a
// dead writer's leftovers (removable) from a live one's (never touched). A pid is judged only on
// the host it belongs to; another host's pid says nothing here.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { sha256Hex } from './hash.js';

/** Names this host in temporary names (a short hash: the host name itself may be long or odd). */
export const HOST_MARK = sha256Hex(hostname()).slice(0, 6);

/** `<host>-<pid>`: the owner part of a temporary name made by process `pid` of this host. */
export function ownerMark(pid = process.pid): string {
  return `${HOST_MARK}-${pid}`;
}

/**
 * True when process `pid` of this host has ended: it does not exist, or it is a zombie (exited,
 * not yet reaped: a container whose init does not reap keeps those for good). EPERM: it exists,
 * under another user.
 */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return isZombie(pid);
}

/** Linux only (/proc); elsewhere a zombie counts as alive, and a lease's expiry decides. */
function isZombie(pid: number): boolean {
  try {
    // `pid (comm) state ...`: comm may hold spaces and parentheses, the state follows the last `)`.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

/**
 * For text that starts with an owner mark (`<host>-<pid>-…`): true when that owner is a process
 * of this host that no longer runs; false for a live one, another host's, or no mark at all.
 */
export function ownerGone(text: string): boolean {
  const m = /^([0-9a-f]{6})-(\d+)-/.exec(text);
  return m?.[1] === HOST_MARK && processGone(Number(m[2]));
}
