// Peak memory of the normalise stage on a big history: 1,000 workspaces x 365 days.
//   npm run bench:memory [-- --workspaces 1000 --days 365]
// Phase 1 (child process): the simulator serves, the real client lands raw files to a temp dir
// (no rate limit worth the name: this measures memory, not politeness). Phase 2 (a fresh child
// process): finishRun normalises every raw file and writes curated parts; its peak RSS
// (getrusage maxrss) is the figure. Results go to stdout and bench/results/normalise-memory.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    phase: { type: 'string' },
    dir: { type: 'string' },
    workspaces: { type: 'string', default: '1000' },
    days: { type: 'string', default: '365' },
  },
});
const workspaces = Number(values.workspaces);
const days = Number(values.days);

async function land(dir: string): Promise<void> {
  const { startSimulator } = await import('../src/simulator/index.js');
  const { extractAccount } = await import('../src/extract/extract-account.js');
  const { MemoryRateBudget } = await import('../src/api/rate-budget.js');
  const { FsObjectStore } = await import('../src/sinks/fs-store.js');
  const { silentLogger } = await import('../src/log.js');
  const { closeAllPools } = await import('../src/api/http-pools.js');
  const sim = await startSimulator({
    seed: 3,
    accounts: [{ name: 'bench', workspaces }],
    limit: { requests: 1_000_000, windowMs: 1000 },
  });
  const run = { account: 'bench', runId: 'bench-run', runDate: new Date().toISOString().slice(0, 10) };
  const r = await extractAccount({
    account: {
      name: 'bench',
      apiKey: sim.accounts[0]!.keys[0]!,
      baseUrl: sim.url,
      brands: 'all',
      requestsPerMinute: 1_000_000,
      rateWindowSeconds: 1,
    },
    run,
    plan: { visibilityDays: days, buyerIntentDays: [7, 30, 90] },
    concurrency: 16,
    store: new FsObjectStore(dir),
    budget: new MemoryRateBudget(),
    logger: silentLogger,
  });
  await closeAllPools();
  await sim.close();
  writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
  process.stdout.write(
    JSON.stringify({
      files: r.files.length,
      failed: r.workspaces.filter((w) => w.status === 'failed').length,
    }),
  );
}

async function curate(dir: string): Promise<void> {
  const { finishRun } = await import('../src/run/finish-run.js');
  const { FsObjectStore } = await import('../src/sinks/fs-store.js');
  const { silentLogger } = await import('../src/log.js');
  const { readFileSync } = await import('node:fs');
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
  const started = Date.now();
  const cpu = process.cpuUsage();
  const r = await finishRun({ store: new FsObjectStore(dir), run, logger: silentLogger });
  const used = process.cpuUsage(cpu);
  const rows = r.files.reduce((n, f) => n + (f.rows ?? 0), 0);
  process.stdout.write(
    JSON.stringify({
      rows,
      parts: r.files.filter((f) => f.key.startsWith('tables/')).length,
      seconds: (Date.now() - started) / 1000,
      cpu_seconds: (used.user + used.system) / 1e6,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

if (values.phase === 'land') await land(values.dir!);
else if (values.phase === 'curate') await curate(values.dir!);
else {
  const dir = mkdtempSync(join(tmpdir(), 'visync-bench-'));
  const self = new URL(import.meta.url).pathname;
  const run = (phase: string) =>
    JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          self,
          '--phase',
          phase,
          '--dir',
          dir,
          '--workspaces',
          String(workspaces),
          '--days',
          String(days),
        ],
        {
          encoding: 'utf8',
          maxBuffer: 16 * 1024 * 1024,
        },
      ),
    );
  try {
    console.log(`landing ${workspaces} workspaces x ${days} days through the simulator...`);
    const landed = run('land');
    console.log(
      `landed ${landed.files} raw files (${landed.failed} failed workspaces); normalising in a fresh process...`,
    );
    const curated = run('curate');
    const result = { workspaces, days, ...curated, limit_mb: 300 };
    console.log(`| workspaces | days | rows | parts | seconds | CPU s | peak RSS MB (limit 300) |`);
    console.log(`|---|---|---|---|---|---|---|`);
    console.log(
      `| ${workspaces} | ${days} | ${curated.rows} | ${curated.parts} | ${curated.seconds} | ${curated.cpu_seconds.toFixed(1)} | ${curated.peak_rss_mb} |`,
    );
    mkdirSync(new URL('./results/', import.meta.url).pathname, { recursive: true });
    writeFileSync(
      new URL('./results/normalise-memory.json', import.meta.url).pathname,
      `${JSON.stringify(result, null, 2)}\n`,
    );
    if (curated.peak_rss_mb > 300) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
