// What a benchmark reads of a live child process on Linux: its CPU time and peak memory, from /proc.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Clock ticks per second, the unit of /proc/PID/stat times. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime and stime of a live process, in ms. */
export function cpuSplitMs(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After "pid (comm) ": state is field 3, so utime (14) and stime (15) are at 11 and 12.
  return { user: (Number(f[11]) * 1000) / CLK_TCK, system: (Number(f[12]) * 1000) / CLK_TCK };
}

/** utime + stime of a live process, in ms. */
export function cpuMs(pid: number): number {
  const { user, system } = cpuSplitMs(pid);
  return user + system;
}

/** Peak resident set (VmHWM) of a live process, in MB. */
export function peakRssMb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/** `pid` and its live descendants (a bin may re-run itself under another Node as a child). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const visit = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return out;
}

function tolerant<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** User and system (kernel) CPU (ms) of a process and its live descendants. */
export function treeCpuSplitMs(pid: number): { user: number; system: number } {
  const sum = { user: 0, system: 0 };
  for (const p of processTree(pid)) {
    const { user, system } = tolerant(() => cpuSplitMs(p), { user: 0, system: 0 });
    sum.user += user;
    sum.system += system;
  }
  return sum;
}

/** CPU (ms) of a process and its live descendants. */
export function treeCpuMs(pid: number): number {
  const { user, system } = treeCpuSplitMs(pid);
  return user + system;
}

/** The largest peak resident set (MB) of a process or one of its live descendants. */
export function treePeakRssMb(pid: number): number {
  return Math.max(0, ...processTree(pid).map((p) => tolerant(() => peakRssMb(p), 0)));
}

/** Inodes of the established TCP connections (seen from `pid`'s network namespace) to `port`. */
function connectionInodesTo(pid: number, port: number): Set<string> {
  const out = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['tcp', 'tcp6']) {
    const text = tolerant(() => readFileSync(`/proc/${pid}/net/${file}`, 'utf8'), '');
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[2]: remote address:port, f[3]: state (01 = established), f[9]: socket inode.
      if (f[3] === '01' && f[2]?.endsWith(`:${hexPort}`) && f[9]) out.add(f[9]);
    }
  }
  return out;
}

/** Open TCP connections from a process (and its descendants) to `port` on this machine: the
 *  socket inodes among its file descriptors that /proc/net/tcp lists as connected there. */
export function tcpConnectionsTo(pid: number, port: number): number {
  const tree = processTree(pid);
  const wanted = connectionInodesTo(pid, port);
  const held = new Set<string>();
  for (const p of tree) {
    for (const fd of tolerant(() => readdirSync(`/proc/${p}/fd`), [] as string[])) {
      const target = tolerant(() => readlinkSync(`/proc/${p}/fd/${fd}`), '');
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && wanted.has(m[1] as string)) held.add(m[1] as string);
    }
  }
  return held.size;
}
