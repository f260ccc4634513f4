// What a benchmark reads of a live child process on Linux: its CPU time and peak memory, from /proc.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second, the unit of /proc/PID/stat times. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a live process, in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After "pid (comm) ": state is field 3, so utime (14) and stime (15) are at 11 and 12.
  return ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
}

/** Peak resident set (VmHWM) of a live process, in MB. */
export function peakRssMb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}
