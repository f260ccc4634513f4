// Child processes of a benchmark: the CLI started through a bin, as a user starts it, with its
// output kept (the tail) for readiness lines and for the error when it dies.
import { type ChildProcess, spawn } from 'node:child_process';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface CliProcess {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr together (the last 100-200 kB). */
  output: () => string;
  /** stdout alone, whole: what a command prints for scripts. */
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node BIN ...args`, with `env` on top of this process's environment. */
export function spawnCli(bin: string, args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stdout = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
    keep(d);
  });
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  if (child.pid === undefined) throw new Error(`could not start node ${bin} ${args.join(' ')}`);
  return { child, pid: child.pid, output: () => out, stdout: () => stdout, exited };
}

/** Waits until the process printed `text`; throws if it exits first or after `timeoutMs`. */
export async function waitForOutput(
  p: CliProcess,
  text: string,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!p.output().includes(text)) {
    if (p.child.exitCode !== null)
      throw new Error(`${what} exited before printing "${text}":\n${p.output()}`);
    if (Date.now() > deadline) throw new Error(`${what}: no "${text}" after ${timeoutMs} ms:\n${p.output()}`);
    await sleep(50);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<{ forced: boolean }> {
  if (child.exitCode !== null || child.signalCode !== null) return { forced: false };
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const inTime = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (inTime) return { forced: false };
  child.kill('SIGKILL');
  await Promise.race([exited, sleep(2_000)]);
  return { forced: true };
}
