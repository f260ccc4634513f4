// One `visync` command run as a child process through the bin, like a user types it: for what only
// a real process shows (that it exits at all, what reaches stderr, the exit code). The bin is this
// run's bundle (test/setup/global-bundle.ts) on the Node 22 of node_modules.
import { type ChildProcess, spawn } from 'node:child_process';
import { builtVisync, NODE22 } from './built-bin.js';
import { onCleanup } from './cleanup-stack.js';
import { waitFor } from './wait-for.js';

/** bin/visync.js of this run's bundle: run it with NODE22. */
export const BIN = builtVisync().bin;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when it exits; a process still running after `guardMs` fails the test. */
  exited: Promise<CliRun>;
}

/** Starts `visync ARGS`; the caller may signal it before it exits. */
export function startVisync(args: string[], env: Record<string, string> = {}, guardMs = 45_000): CliProcess {
  return startProcess(NODE22, [BIN, ...args], { env, guardMs });
}

/** Starts any command (an installed `visync`, say) with its output collected, killed after the test. */
export function startProcess(
  command: string,
  args: string[],
  o: { env?: Record<string, string>; cwd?: string; guardMs?: number } = {},
): CliProcess {
  const guardMs = o.guardMs ?? 45_000;
  const child = spawn(command, args, {
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(o.cwd ? { cwd: o.cwd } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const kill = () => child.kill('SIGKILL');
  // Killed, and gone, before the folders made before it are removed (test/helpers/cleanup-stack.ts).
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) kill();
    await gone;
  });
  const exited = new Promise<CliRun>((resolve, reject) => {
    const guard = setTimeout(() => {
      kill();
      reject(new Error(`${command} ${args.join(' ')} still running after ${guardMs} ms:\n${stderr}`));
    }, guardMs);
    // 'close' comes after the exit and after the last output in the pipes.
    child.once('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs `visync ARGS` to its end. */
export function runVisync(
  args: string[],
  env: Record<string, string> = {},
  guardMs = 45_000,
): Promise<CliRun> {
  return startVisync(args, env, guardMs).exited;
}

/** Resolves once `test` holds for the process output (polled), or fails after `timeoutMs`. */
export async function waitForOutput(
  p: CliProcess,
  test: (stdout: string, stderr: string) => boolean,
  timeoutMs = 40_000,
): Promise<void> {
  await waitFor(
    () => {
      if (test(p.stdout(), p.stderr())) return true;
      if (p.child.exitCode !== null) throw new Error(`visync exited early:\n${p.stdout()}\n${p.stderr()}`);
      return false;
    },
    { what: () => `the output:\n${p.stdout()}\n${p.stderr()}`, timeoutMs },
  );
}
