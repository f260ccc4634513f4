#!/usr/bin/env node
// Runs a command as if it were another day: `node scripts/on-day.mjs 2028-02-29T12:00:00Z npm run test:fast`.
// Every Node process the command starts (vitest and its workers, the spawned visync, the
// simulator) sees the wall clock moved to that moment and running on from there; timers and
// performance.now stay real. Set TZ beside it for a local-time case (a daylight-saving change).
// docs/development.md ("Another day on the clock") lists the days the suite is checked on.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [when, command, ...args] = process.argv.slice(2);
const target = when ? Date.parse(when) : Number.NaN;
if (!command || Number.isNaN(target)) {
  console.error(
    'usage: node scripts/on-day.mjs <ISO date-time, e.g. 2028-02-29T12:00:00Z> <command> [args...]',
  );
  process.exit(64);
}
const preload = fileURLToPath(new URL('../test/setup/moved-clock.mjs', import.meta.url));
const env = {
  ...process.env,
  VISYNC_CLOCK_OFFSET_MS: String(target - Date.now()),
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${JSON.stringify(preload).slice(1, -1)}`.trim(),
};
const child = spawn(command, args, { env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
