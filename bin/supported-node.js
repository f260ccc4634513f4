// visync supports Node.js 22.19+ (22, 24 and 26 LTS; docs/development.md "Node.js versions"). Started by an
// older Node (a machine whose system Node is 20), the bins re-run themselves under the Node 22
// that `npm ci` installs into a clone (the `node` dev dependency), so `node bin/visync.js` and
// `npx visync` behave the same there; without it they stop with one line that says what to do.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MIN_NODE = [22, 19, 0];

/** True when `version` ("20.20.2") is at least MIN_NODE. */
export function isSupportedNode(version) {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < MIN_NODE.length; i++) {
    if ((parts[i] ?? 0) !== MIN_NODE[i]) return (parts[i] ?? 0) > MIN_NODE[i];
  }
  return true;
}

const PARENT_ENV = 'VISYNC_REEXEC_PARENT_PID';
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Returns false when this Node is supported (the caller goes on). Otherwise it runs the same
 * command under the clone's Node 22 and returns true: the exit code (or signal) is the child's.
 */
export function reexecOnSupportedNode() {
  const parent = process.env[PARENT_ENV];
  if (parent) {
    // Not inherited further: the processes this one starts have another parent.
    delete process.env[PARENT_ENV];
    watchParent(Number(parent));
  }
  if (isSupportedNode(process.versions.node)) return false;
  const local = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  const min = MIN_NODE.join('.');
  if (!existsSync(local)) {
    process.stderr.write(
      `visync: needs Node.js ${min} or newer (22, 24 or 26 LTS); this is ${process.version}. Install a current LTS from https://nodejs.org and run it again.\n`,
    );
    process.exitCode = 1;
    return true;
  }
  // Its own process group: a Ctrl-C reaches the child once, through the forwarding below.
  const child = spawn(local, process.argv.slice(1), {
    stdio: 'inherit',
    detached: true,
    env: { ...process.env, [PARENT_ENV]: String(process.pid) },
  });
  const forward = (signal) => child.kill(signal);
  for (const s of FORWARDED) process.on(s, forward);
  child.on('error', (err) => {
    process.stderr.write(`visync: could not start ${local}: ${err.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code ?? 1;
  });
  return true;
}

/** A re-run child whose parent died (SIGKILL) shuts down the way a SIGTERM asks it to. */
function watchParent(parentPid) {
  const timer = setInterval(() => {
    if (process.ppid !== parentPid) {
      clearInterval(timer);
      process.kill(process.pid, 'SIGTERM');
    }
  }, 1000);
  timer.unref();
}
