// Shared test plumbing: a simulator per test, a temp data dir, a config built through the real
// loader, and a logger whose lines the test can read.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { main } from '../../src/cli/main.js';
import { parseConfig } from '../../src/config/read-config.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { type FakeBigQuery, startFakeBigQuery } from '../fakes/bigquery-server.js';
import { cleanups } from './cleanup-stack.js';

export { runCleanups } from './cleanup-stack.js';

import { writeConfig } from './worker-process.js';

/**
 * What `make` starts (simulators, folders, keys in process.env) kept past the test it runs in, for
 * a fixture a file builds once in its beforeAll: `close` ends them (in its afterAll).
 */
export async function outlivingTests<T>(
  make: () => Promise<T>,
): Promise<{ value: T; close: () => Promise<void> }> {
  const mark = cleanups.length;
  const value = await make();
  const mine = cleanups.splice(mark);
  return {
    value,
    close: async () => {
      while (mine.length) await mine.pop()?.();
    },
  };
}

export async function sim(options: SimulatorOptions): Promise<Simulator> {
  const s = await startSimulator(options);
  cleanups.push(() => s.close());
  return s;
}

/** A fake BigQuery REST server for this test, closed after it. */
export async function fakeBigQuery(): Promise<FakeBigQuery> {
  const f = await startFakeBigQuery();
  cleanups.push(() => f.close());
  return f;
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'visync-test-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface ConfigOverrides {
  /** Per account: brands list, rate limit, or anything else of the account block. */
  accounts?: Record<string, Record<string, unknown>>;
  extract?: Record<string, unknown>;
  sinks?: Record<string, unknown>;
  /** Other top-level sections (redis, jobs, schedule, shutdownGraceSeconds). */
  top?: Record<string, unknown>;
}

/** A config for every simulated account, keys passed through ${ENV} like a user would. */
export function configFor(s: Simulator, dir: string, o: ConfigOverrides = {}): Config {
  const { yaml, env } = configYaml(s, dir, o);
  return parseConfig(yaml, { source: 'test-config.yaml', env });
}

/** The config as YAML text plus the environment holding its keys (for worker child processes). */
export function configYaml(
  s: Simulator,
  dir: string,
  o: ConfigOverrides = {},
): { yaml: string; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const accounts = s.accounts.map((a) => {
    const envName = `SIM_${a.name.replace(/-/g, '_').toUpperCase()}_KEY`;
    env[envName] = a.keys[0] as string;
    return { name: a.name, apiKey: `\${${envName}}`, baseUrl: s.url, ...(o.accounts?.[a.name] ?? {}) };
  });
  const doc = {
    accounts,
    extract: { buyerIntentDays: [7, 30], visibilityDays: 3, ...(o.extract ?? {}) },
    sinks: o.sinks ?? { fs: { dir } },
    // Test workers serve no HTTP endpoint unless a test sets one: they would all want 127.0.0.1:9464.
    worker: { listen: 'off' },
    ...(o.top ?? {}),
  };
  return { yaml: stringify(doc), env };
}

/**
 * The config written to `dir/visync.yaml` as a user would, with its keys in process.env (removed
 * after the test), for CLI commands run in this process.
 */
export function configFile(
  s: Simulator,
  dir: string,
  o: ConfigOverrides = {},
): { path: string; yaml: string; env: Record<string, string> } {
  const { yaml, env } = configYaml(s, dir, o);
  Object.assign(process.env, env);
  cleanups.push(() => {
    for (const k of Object.keys(env)) delete process.env[k];
  });
  return { path: writeConfig(dir, yaml), yaml, env };
}

/** CLI output lines, for `main(argv, io)` run in this process. */
export function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

/** `visync --config <path> <args>` run in this process: its exit code and output lines. */
export async function visyncCli(path: string, args: string[]) {
  const c = capture();
  const code = await main(['node', 'visync', '--config', path, ...args], c.io);
  return { code, ...c };
}

/** `visync run --once` run in this process against a config file written for `s`. */
export async function runOnceCli(s: Simulator, dir: string, args: string[], o: ConfigOverrides = {}) {
  return visyncCli(configFile(s, dir, o).path, ['run', '--once', '--log-level', 'silent', ...args]);
}

/** Two accounts of one workspace each: acme's own and a workspace of another account. */
export async function simWithForeignWorkspace(): Promise<{ s: Simulator; own: string; foreign: string }> {
  const s = await sim({
    accounts: [
      { name: 'acme', workspaces: 1 },
      { name: 'other', workspaces: 1 },
    ],
  });
  return { s, own: s.accounts[0]!.workspaceIds[0]!, foreign: s.accounts[1]!.workspaceIds[0]! };
}

/** Every call for the workspace's brand fails with a 400, for good. */
export function breakWorkspace(s: Simulator, account: string, brandId: string): void {
  s.addFault({ account, endpoint: 'brand', brandId, kind: 'status', status: 400, times: Infinity });
}

export function memoryLogger(level = 'debug') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  return { logger: createLogger({ level, stream }), lines };
}

/**
 * Every file below `dir`, as paths relative to it. Not the fs store's temporary `@tmp-` files: they
 * are never keys, and a writer killed mid-write may leave one.
 */
export function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p, base));
    else if (!name.startsWith('@tmp-')) out.push(p.slice(base.length + 1));
  }
  return out.sort();
}

export function readBytes(dir: string, key: string): Buffer {
  return readFileSync(join(dir, ...key.split('/')));
}

export function readText(dir: string, key: string): string {
  return readBytes(dir, key).toString('utf8');
}

/** Short backoffs so retry tests take milliseconds. */
export const FAST_RETRY = { baseMs: 5, capMs: 20 };

/** The pid of a process that has exited (for leftovers of a killed process). */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}
