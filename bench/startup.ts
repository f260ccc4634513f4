// Start-up cost of the CLI, as a user pays it: wall time of `node -e 0`, `visync --help` and
// `visync status` (against a private redis-server), and the CPU a `visync worker` spends until it
// prints its ready line.
//   npm run build && npm run bench:startup [-- --runs 10 --bin path/to/bin/visync.js --listen 127.0.0.1:0]
// `--bin` points at another checkout's bin to compare before and after a change; `--listen` is
// passed to the worker (its endpoint; a bin older than the endpoint has no such flag). Targets:
// `--help` at most 3x `node -e 0`, `status` under 0.6 s, worker start-up CPU under 0.5 s.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSimulator } from '../src/simulator/index.js';
import { startPrivateRedis } from '../test/helpers/redis-server.js';
import { cpuMs, peakRssMb } from './proc-stats.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    bin: { type: 'string', default: new URL('../bin/visync.js', import.meta.url).pathname },
    listen: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const BIN = values.bin as string;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Median wall time in ms of `node ARGS` over RUNS runs (after one warm-up); fails on a non-zero exit. */
function wallMs(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
    if (i > 0) times.push(ms);
  }
  return median(times);
}

/** CPU (ms) and peak RSS (MB) of one worker from spawn to its ready line. */
async function workerStart(config: string): Promise<{ cpu: number; rss: number }> {
  const listen = values.listen ? ['--listen', values.listen] : [];
  const child = spawn(
    process.execPath,
    [BIN, '--config', config, 'worker', ...listen, '--log-level', 'info'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('visync worker ready')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before ready:\n${out}`)));
  });
  try {
    await ready;
    return { cpu: cpuMs(child.pid as number), rss: peakRssMb(child.pid as number) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'visync-startup-'));
const redis = await startPrivateRedis();
const sim = await startSimulator({ seed: 1, accounts: [{ name: 'acme', workspaces: 2 }] });
try {
  const config = join(dir, 'visync.yaml');
  writeFileSync(
    config,
    [
      'accounts:',
      '  - name: acme',
      `    apiKey: ${sim.accounts[0]?.keys[0]}`,
      `    baseUrl: ${sim.url}`,
      `redis: { url: "${redis.url}", prefix: startup }`,
      `sinks: { fs: { dir: ${JSON.stringify(join(dir, 'data'))} } }`,
      '',
    ].join('\n'),
  );
  const node = wallMs(['-e', '0']);
  const help = wallMs([BIN, '--help']);
  const status = wallMs([BIN, '--config', config, 'status']);
  const workers: { cpu: number; rss: number }[] = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) workers.push(await workerStart(config));
  const rows = [
    ['node -e 0', `${node.toFixed(0)} ms`, ''],
    ['visync --help', `${help.toFixed(0)} ms`, `${(help / node).toFixed(1)}x node -e 0 (target <= 3x)`],
    ['visync status', `${status.toFixed(0)} ms`, 'target < 600 ms'],
    [
      'worker start-up CPU',
      `${median(workers.map((w) => w.cpu)).toFixed(0)} ms`,
      `peak RSS ${median(workers.map((w) => w.rss)).toFixed(0)} MB (target < 500 ms CPU)`,
    ],
  ];
  console.log(`bin: ${BIN}, node ${process.version}, median of ${RUNS} runs (worker: ${workers.length})`);
  console.log('| measure | median | note |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
} finally {
  await sim.close();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}
