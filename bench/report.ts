// Client reports at agency scale: one simulator account of many workspaces with a year of daily
// history, synced once, then `visync report` of every workspace (HTML and JSON) and PDFs of a sample.
//   npm run bench:report [-- --workspaces 500 --days 365 --pdf-sample 20 --out report]
//   npm run bench:report -- --workspaces 20 --pdf-sample 5 --out report-try   # a quick try
// --bin: what is measured: `built` (default: `npm run build` first, then bin/visync.js), `dev`
// (bin/visync-dev.js, through tsx) or the path of another checkout's bin.
//
// Steps: the simulator (in this process, a compressed rate window so the sync takes seconds) and one
// inline sync with `days` of visibility history into an fs store; then, measured:
//  - the report step: `visync report --format html,json --out DIR` in its own process under
//    /usr/bin/time (its whole CPU and peak RSS, start-up included, divided by the reports made);
//  - the partitions: makeAccountReports (json only) in this process, for partsRead/partsTotal
//    (the CLI does not print them);
//  - the PDFs: the first K written pages printed by one PdfSession (one Chromium): the first alone
//    (browser warm-up, left out of the steady-state figure), then the others handed over at once, as
//    makeAccountReports does (the session prints PRINTS_AT_ONCE at a time); wall time / reports. Chromium's memory is the
//    largest sum of the proportional set sizes (PSS) of this process's descendants, sampled every 100 ms.
// Results: stdout and bench/results/<out>.json.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { parseConfig } from '../src/config/read-config.js';
import { createLogger } from '../src/log.js';
import { makeAccountReports } from '../src/report/make.js';
import { dirTarget } from '../src/report/output.js';
import { PdfSession, PRINTS_AT_ONCE } from '../src/report/render/pdf.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { startSimulator } from '../src/simulator/index.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { binToMeasure } from './lib/bin.js';
import { CleanupStack } from './lib/cleanup.js';
import { countList } from './lib/flags.js';
import { round } from './lib/stats.js';
import { processTree } from './proc-stats.js';

const TODAY = '2026-11-10';
const ACCOUNT = 'acme';
/** A compressed window: 2000 requests a second, so a year of 500 workspaces syncs in seconds. */
const LIMIT = { requests: 2000, windowMs: 1000 };
const TARGETS = { html_cpu_ms_per_report: 50, pdf_s_per_report: 0.5, peak_rss_mb: 400 };

const { values } = parseArgs({
  options: {
    workspaces: { type: 'string', default: '500' },
    days: { type: 'string', default: '365' },
    'pdf-sample': { type: 'string', default: '20' },
    bin: { type: 'string', default: 'built' },
    out: { type: 'string', default: 'report' },
  },
});
const [workspaces] = countList('workspaces', values.workspaces) as [number];
const [days] = countList('days', values.days) as [number];
const [pdfSample] = countList('pdf-sample', values['pdf-sample']) as [number];
if (days > 365) throw new Error(`--days: expected 1 to 365, got ${days}`);
if (!/^[\w-]+$/.test(values.out ?? ''))
  throw new Error(`--out: expected a file name without extension, got "${values.out}"`);
const BIN = binToMeasure(values.bin as string);

const cleanups = new CleanupStack();
cleanups.onSignals();
const log = (line: string) => process.stderr.write(`[report] ${line}\n`);

/** Proportional set (MB) of a live process now: its shared pages split among their sharers, so
 *  summing it over Chromium's processes does not count the shared ones many times. */
function pssMb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs `node BIN ...args` under /usr/bin/time: its exit code, CPU (ms) and peak RSS (MB). */
function timedCli(args: string[], env: Record<string, string>) {
  return new Promise<{
    code: number | null;
    cpuMs: number;
    peakRssMb: number;
    wallMs: number;
    output: string;
  }>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      '/usr/bin/time',
      [
        '-f',
        'BENCH-TIME %U %S %M',
        process.execPath,
        // BENCH_CPU_PROF=DIR: a V8 CPU profile of each step, to see where a report's time goes.
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
        BIN,
        ...args,
      ],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-100_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code) => {
      const m = /BENCH-TIME ([\d.]+) ([\d.]+) (\d+)/.exec(output);
      if (!m) return reject(new Error(`no /usr/bin/time line in:\n${output.slice(-2000)}`));
      resolve({
        code,
        cpuMs: (Number(m[1]) + Number(m[2])) * 1000,
        peakRssMb: Number(m[3]) / 1024,
        wallMs: performance.now() - started,
        output,
      });
    });
  });
}

/** The report.html files under `dir` (dirTarget's layout), sorted. */
function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('report.html'))
    .sort()
    .map((f) => join(dir, f));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'visync-bench-report-'));
  cleanups.defer(() => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'data');
  const outDir = join(dir, 'out');

  const sim = await startSimulator({
    seed: 22,
    accounts: [{ name: ACCOUNT, workspaces }],
    limit: LIMIT,
    today: TODAY,
  });
  cleanups.defer(() => sim.close());
  const keyEnv = 'BENCH_REPORT_KEY';
  const env = { [keyEnv]: sim.accounts[0]?.keys[0] as string };
  const yaml = stringify({
    accounts: [
      {
        name: ACCOUNT,
        apiKey: `\${${keyEnv}}`,
        baseUrl: sim.url,
        requestsPerMinute: LIMIT.requests,
        rateWindowSeconds: LIMIT.windowMs / 1000,
      },
    ],
    sinks: { fs: { dir: dataDir } },
    worker: { listen: 'off' },
  });
  const configPath = join(dir, 'visync.yaml');
  writeFileSync(configPath, yaml);

  log(`sync: ${workspaces} workspaces, ${days} days`);
  const syncStarted = performance.now();
  const run = await runInline({
    config: parseConfig(yaml, { source: configPath, env }),
    store: new FsObjectStore(dataDir),
    logger: createLogger({ level: 'warn' }),
    runDate: TODAY,
    days,
  });
  const syncS = (performance.now() - syncStarted) / 1000;
  if (run.status !== 'succeeded') throw new Error(`the sync ended ${run.status}`);
  await sim.close();
  log(`sync done in ${round(syncS, 1)} s`);

  log('report step: visync report --format html,json');
  const step = await timedCli(
    ['--config', configPath, 'report', '--account', ACCOUNT, '--format', 'html,json', '--out', outDir],
    env,
  );
  if (step.code !== 0) throw new Error(`visync report exited ${step.code}:\n${step.output.slice(-4000)}`);
  const pages = htmlFiles(outDir);
  if (pages.length !== workspaces)
    throw new Error(`visync report wrote ${pages.length} reports of ${workspaces} workspaces`);
  log(`report step: ${round(step.cpuMs / 1000, 1)} s CPU, ${round(step.wallMs / 1000, 1)} s wall`);

  const parts = await makeAccountReports({
    store: new FsObjectStore(dataDir),
    target: dirTarget(join(dir, 'parts')),
    account: ACCOUNT,
    brands: [],
    formats: ['json'],
    styleFor: () => DEFAULT_STYLE,
    now: Date.parse(`${TODAY}T12:00:00Z`),
  });

  const sample = pages.slice(0, Math.min(pdfSample, pages.length));
  log(`pdf: ${sample.length} reports, one browser`);
  let chromiumPeakMb = 0;
  const sampler = setInterval(() => {
    const others = processTree(process.pid).filter((p) => p !== process.pid);
    chromiumPeakMb = Math.max(
      chromiumPeakMb,
      others.reduce((sum, p) => sum + pssMb(p), 0),
    );
  }, 100);
  cleanups.defer(() => clearInterval(sampler));
  const session = await PdfSession.open();
  cleanups.defer(() => session.close());
  const htmls = sample.map((file) => readFileSync(file, 'utf8'));
  const timed = async (html: string) => {
    const t = performance.now();
    await session.render(html, { pageSize: 'A4' });
    return (performance.now() - t) / 1000;
  };
  const firstS = htmls.length ? await timed(htmls[0] as string) : 0;
  const batchStarted = performance.now();
  // Each call's time includes its wait for a free printer: only the batch's wall time is a rate.
  await Promise.all(htmls.slice(1).map(timed));
  const batchS = (performance.now() - batchStarted) / 1000;
  clearInterval(sampler);
  const steadyCount = Math.max(0, htmls.length - 1);

  const result = {
    workspaces,
    accounts: 1,
    days,
    reports: pages.length,
    html_cpu_ms_per_report: round(step.cpuMs / pages.length, 1),
    pdf_s_per_report: round(steadyCount ? batchS / steadyCount : 0, 3),
    peak_rss_mb: round(step.peakRssMb, 1),
    partitions_read: parts.partsRead,
    partitions_total: parts.partsTotal,
    targets: TARGETS,
    details: {
      report_step_cpu_s: round(step.cpuMs / 1000, 2),
      report_step_wall_s: round(step.wallMs / 1000, 2),
      report_step:
        '`visync report --format html,json --out DIR` in its own process; CPU and peak RSS from /usr/bin/time (start-up included)',
      pdf_sample: sample.length,
      pdf_first_s: round(firstS, 3),
      pdf_batch_wall_s: round(batchS, 2),
      pdf_prints_at_once: PRINTS_AT_ONCE,
      pdf: 'one PdfSession (one Chromium): the first of pdf_sample written pages printed alone (warm-up), then the others handed over at once; pdf_s_per_report is the wall time of those others / their number',
      chromium_peak_rss_mb: round(chromiumPeakMb, 1),
      chromium_rss:
        'largest sum of the proportional set sizes (PSS) of the Chromium process tree, sampled every 100 ms while printing',
      sync_s: round(syncS, 1),
      rate_window: `${LIMIT.requests} requests per ${LIMIT.windowMs} ms (compressed)`,
      bin: values.bin,
      cores: cpus().length,
      measured: new Date().toISOString().slice(0, 10),
    },
  };
  const path = new URL(`./results/${values.out}.json`, import.meta.url).pathname;
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
  log(`wrote ${path}`);
}

try {
  await main();
} finally {
  await cleanups.run();
}
