// For report tests: a simulator account synced on two nights (the simulator's `today` and
// the run date moved on, so recommendations, claims and scores change between them), and
// the written page opened in Chromium.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { type AccountReportOptions, makeAccountReports } from '../../src/report/make.js';
import { dirTarget } from '../../src/report/output.js';
import { DEFAULT_STYLE } from '../../src/report/style.js';
import type { FaultRule } from '../../src/simulator/faults.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FsObjectStore } from '../../src/sinks/fs-store.js';
import { brandKey } from '../../src/sinks/layout.js';
import * as h from './harness.js';
import { syncNight } from './nights.js';
import { chromiumBrowser } from './shared-chromium.js';

export const SPEC = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 22 };
export const NIGHTS = ['2026-10-20', '2026-11-10'] as const;

/** Two nights of acme into `dir`; returns the config path and the second night's simulator. */
export async function twoNights(
  dir: string,
  nights: readonly string[] = NIGHTS,
  faults: FaultRule[] = [],
  workspacesPerNight: readonly number[] = [2, 2],
): Promise<{ config: string; last: Simulator }> {
  let last: Simulator | undefined;
  let path = '';
  for (const [i, night] of nights.entries()) {
    const accounts = [{ name: 'acme', workspaces: workspacesPerNight[i] ?? 2 }];
    const run = await syncNight(dir, { ...SPEC, accounts }, night, {
      faults,
      config: { extract: { visibilityDays: 30 } },
    });
    expect(run.status).toBe('succeeded');
    path = run.config;
    last = run.sim;
  }
  return { config: path, last: last as Simulator };
}

export interface NightsCopy {
  /** The test's own folder: the synced store and its visync.yaml (sinks.fs.dir pointing here). */
  dir: string;
  config: string;
  /** acme's workspace ids on the last night. */
  brands: string[];
}

/**
 * `twoNights` synced once for a test file (call at its top level: beforeAll syncs, afterAll closes
 * the simulator), and each test's own copy of the result, so each test owns what it writes. The
 * last night's simulator stays up until the file ends (`sim()`: a test can count its requests).
 */
export function twoNightsOnce(nights: readonly string[] = NIGHTS): {
  copy: (dir?: string) => NightsCopy;
  sim: () => Simulator;
} {
  let built: { dir: string; brands: string[]; sim: Simulator; env: Record<string, string> } | undefined;
  let close = async () => {};
  beforeAll(async () => {
    const held = await h.outlivingTests(async () => {
      const dir = h.tempDir();
      const { config, last } = await twoNights(dir, nights);
      // The keys the config names (${SIM_ACME_KEY}), given back to each copy's test.
      const env: Record<string, string> = {};
      for (const [, name] of readFileSync(config, 'utf8').matchAll(/\$\{(\w+)\}/g))
        env[name as string] = process.env[name as string] as string;
      const brands = [...(last.accounts[0] as { workspaceIds: string[] }).workspaceIds];
      return { dir, brands, sim: last, env };
    });
    built = held.value;
    close = held.close;
  });
  afterAll(() => close());
  const got = () => {
    if (!built) throw new Error('twoNightsOnce: call it at the top level of a test file');
    return built;
  };
  return {
    sim: () => got().sim,
    copy: (dir = h.tempDir()) => {
      const b = got();
      cpSync(b.dir, dir, { recursive: true });
      const config = join(dir, 'visync.yaml');
      const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
      doc.sinks = { fs: { dir } };
      writeFileSync(config, stringify(doc));
      // Another test may have removed them (h.configFile's cleanup).
      Object.assign(process.env, b.env);
      return { dir, config, brands: [...b.brands] };
    },
  };
}

/** acme's JSON and PDF reports of the default period from the nights in `dir`, into `out`. */
export function pdfReports(dir: string, out: string, printPdf: AccountReportOptions['printPdf']) {
  return makeAccountReports({
    store: new FsObjectStore(dir),
    target: dirTarget(out),
    account: 'acme',
    brands: [],
    formats: ['json', 'pdf'],
    styleFor: () => DEFAULT_STYLE,
    printPdf,
    now: Date.now(),
  });
}

export function reportDir(out: string, brandId: string, period: string): string {
  return join(out, 'account=acme', `brand=${brandKey(brandId)}`, `period=${period}`);
}

/**
 * The page in headless Chromium with JavaScript off and every request refused (and counted): a
 * context of the run's shared browser; `browser.close()` closes only this connection and context.
 */
export async function openInChromium(file: string) {
  const browser = await chromiumBrowser();
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 1024, height: 800 },
  });
  let requests = 0;
  await context.route('**/*', (route) => {
    requests += 1;
    return route.abort();
  });
  const page = await context.newPage();
  await page.setContent(readFileSync(file, 'utf8'), { waitUntil: 'load' });
  return { browser, page, requests: () => requests };
}

/** Two nights synced, the config's top-level and first account's `reports` blocks set (given the two
 * workspace ids), then `visync report` of 2026-11 in every format into a fresh folder, exit 0. */
export async function reportNovemberWith(
  reports: (
    first: string,
    second: string,
  ) => { top?: Record<string, unknown>; account?: Record<string, unknown> },
  /** The test's own copy of nights synced once for its file (`twoNightsOnce(...).copy`); else synced here. */
  nights?: () => NightsCopy,
): Promise<{ out: string; first: string; second: string }> {
  const { config, brands } = nights
    ? nights()
    : await twoNights(h.tempDir()).then(({ config, last }) => ({
        config,
        brands: (last.accounts[0] as { workspaceIds: string[] }).workspaceIds,
      }));
  const [first, second] = brands as [string, string];
  const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown> & {
    accounts: Record<string, unknown>[];
  };
  const set = reports(first, second);
  if (set.top) doc.reports = set.top;
  if (set.account) (doc.accounts[0] as Record<string, unknown>).reports = set.account;
  writeFileSync(config, stringify(doc));
  const out = await reportNovember(config, 'html,json,pdf');
  return { out, first, second };
}

/** `visync report --period 2026-11 --format FORMATS --out DIR ...extra` in a fresh folder: the folder and what the command said. */
export async function reportNovemberCli(config: string, formats: string, extra: string[] = []) {
  const out = h.tempDir();
  const r = await h.visyncCli(config, [
    'report',
    '--period',
    '2026-11',
    '--format',
    formats,
    '--out',
    out,
    ...extra,
  ]);
  return { out, r };
}

/** `reportNovemberCli`, exit 0, nothing on stderr; the folder. */
export async function reportNovember(config: string, formats: string, extra: string[] = []): Promise<string> {
  const { out, r } = await reportNovemberCli(config, formats, extra);
  expect(r.code, r.err.join('\n')).toBe(0);
  expect(r.err).toEqual([]);
  return out;
}
