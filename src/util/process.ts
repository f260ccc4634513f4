import { readFileSync } from 'node:fs';

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
