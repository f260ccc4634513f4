// API keys never reach log output, CLI error lines or the manifest, in any form a message may carry
// them: raw, JSON-escaped or URL-encoded; also short keys and keys with characters JSON escapes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig } from '../src/config/read-config.js';
import { scrubSecrets } from '../src/log.js';
import { readManifest } from '../src/records/manifest.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { redactJsonBody } from '../src/util/redact.js';
import {
  fakeBigQuery,
  listFiles,
  memoryLogger,
  runOnceCli,
  sim,
  tempDir,
  visyncCli,
} from './helpers/harness.js';
import { writeConfig } from './helpers/worker-process.js';

const WEIRD = 'k"\\é/1';
const SHORT = 'ab3de';

/** Every form in which a message may carry `key`. */
function forms(key: string): string[] {
  return [
    key,
    JSON.stringify(key).slice(1, -1),
    JSON.stringify(JSON.stringify(key)).slice(1, -1),
    encodeURIComponent(key),
    new URLSearchParams({ k: key }).toString().slice(2),
  ];
}

function expectNoKey(text: string): void {
  for (const key of [WEIRD, SHORT]) for (const f of forms(key)) expect(text).not.toContain(f);
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** An upstream that refuses every key and echoes it back in its error body, in every form. */
async function echoingUpstream(): Promise<string> {
  const server = createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const key = Buffer.from(token, 'latin1').toString('utf8');
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          code: 'unauthorized',
          message: `key ${key} is revoked`,
          see: `/keys?k=${encodeURIComponent(key)}`,
        },
      }),
    );
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

function configText(baseUrl: string, dir: string, apiKeys: { weird: string; short: string }): string {
  return stringify({
    accounts: [
      { name: 'weird', apiKey: apiKeys.weird, baseUrl },
      { name: 'short', apiKey: apiKeys.short, baseUrl },
    ],
    sinks: { fs: { dir } },
  });
}

const ENV = { WEIRD_KEY: WEIRD, SHORT_KEY: SHORT };
const FROM_ENV = { weird: '${WEIRD_KEY}', short: '${SHORT_KEY}' };

describe('secrets', () => {
  it('a short key and a key with characters JSON escapes never appear in log output, in any form', () => {
    parseConfig(configText('http://127.0.0.1:1/api/v1', '/tmp/x', FROM_ENV), { source: 'c.yaml', env: ENV });
    const { logger, lines } = memoryLogger('debug');
    for (const key of [WEIRD, SHORT]) {
      const all = forms(key).join(' | ');
      logger.info({ detail: all, nested: { url: `https://x/?k=${encodeURIComponent(key)}` } }, `saw ${all}`);
      logger.error(new Error(`failed with ${all}`));
    }
    const out = lines.join('');
    expect(out).toContain('[redacted]');
    expectNoKey(out);
    expectNoKey(scrubSecrets(`visync: ${forms(WEIRD).join(' ')} ${forms(SHORT).join(' ')}`));
  });

  it('an upstream that echoes the key in its error body: no form of it in logs, manifest or CLI error lines', async () => {
    const baseUrl = await echoingUpstream();
    const dir = tempDir();
    const config = parseConfig(configText(baseUrl, join(dir, 'data'), FROM_ENV), {
      source: 'c.yaml',
      env: ENV,
    });
    const { logger, lines } = memoryLogger('debug');
    const { manifests } = await runInline({ config, store: new FsObjectStore(join(dir, 'data')), logger });
    expect(manifests.map((m) => m.status)).toEqual(['failed', 'failed']);
    // The upstream's own words reach the manifest, without the key.
    expect(manifests[0]!.error).toMatch(/-> 401.*is revoked/);
    const files = listFiles(join(dir, 'data')).map((f) => readFileSync(join(dir, 'data', f), 'utf8'));
    expectNoKey([lines.join(''), ...files].join('\n'));

    const cfg = writeConfig(dir, configText(baseUrl, join(dir, 'cli-data'), FROM_ENV));
    Object.assign(process.env, ENV);
    const cli = await visyncCli(cfg, ['run', '--once', '--log-level', 'silent']).finally(() => {
      for (const k of Object.keys(ENV)) delete process.env[k];
    });
    expect(cli.code).toBe(1);
    expect(cli.err.join('\n')).toMatch(/weird: GET \/api\/v1\/me -> 401/);
    expectNoKey([...cli.err, ...cli.out].join('\n'));
  });

  it('a key written in plain text in the config file gives one warning; ${ENV} keys give none', () => {
    const warnings: string[] = [];
    const onWarning = (w: string) => warnings.push(w);
    parseConfig(configText('http://127.0.0.1:1/api/v1', '/tmp/x', FROM_ENV), {
      source: 'c.yaml',
      env: ENV,
      onWarning,
    });
    expect(warnings).toEqual([]);
    parseConfig(configText('http://127.0.0.1:1/api/v1', '/tmp/x', { weird: '${WEIRD_KEY}', short: SHORT }), {
      source: 'c.yaml',
      env: ENV,
      onWarning,
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/accounts\.1\.apiKey.*plain text.*\$\{/);
    expectNoKey(warnings[0]!);
  });

  it('.env, at the root and under config/, is ignored by git', () => {
    const root = new URL('..', import.meta.url).pathname;
    expect(
      execFileSync('git', ['check-ignore', '.env', 'config/.env'], { cwd: root, encoding: 'utf8' }),
    ).toBe('.env\nconfig/.env\n');
  });

  it('an upstream that echoes the key in 200 bodies: no form of it in any file, BigQuery row or manifest; the manifest counts them', async () => {
    // ASCII, so the simulator reads it back from the header; `"` and `\` are JSON-escaped in a body.
    const key = 'live_k"\\/1_echo';
    const s = await sim({ accounts: [{ name: 'acme', keys: [key], workspaces: 2 }] });
    const echoed = s.accounts[0]!.workspaceIds[0]!;
    s.addFault({ endpoint: 'me', kind: 'echo-key', times: Infinity });
    s.addFault({ endpoint: 'brand', brandId: echoed, kind: 'echo-key', times: Infinity });
    s.addFault({ endpoint: 'reputation', brandId: echoed, kind: 'echo-key', times: Infinity });
    const bq = await fakeBigQuery();
    const dir = tempDir();
    const c = await runOnceCli(s, dir, [], {
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url } },
    });
    expect(c.code).toBe(0);

    const noKey = (text: string, where: string) => {
      for (const f of forms(key)) expect(text.includes(f), `${where} holds the key as ${f}`).toBe(false);
    };
    const files = listFiles(dir);
    for (const f of files) {
      const bytes = readFileSync(join(dir, f));
      noKey((f.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'), f);
    }
    for (const name of bq.tables.keys()) {
      const [project, rest] = name.split(':') as [string, string];
      const [dataset, table] = rest.split('.') as [string, string];
      noKey(JSON.stringify(bq.rows(project, dataset, table)), `BigQuery ${table}`);
    }
    noKey([...c.out, ...c.err].join('\n'), 'CLI output');

    // The raw landing says where: the marker in the body, the count in the request; the manifest adds them up.
    const runId = /\| run (\S+) \|/.exec(c.out[0]!)![1]!;
    const manifest = (await readManifest(new FsObjectStore(dir), 'acme', runId))!;
    const counted = manifest.files.filter((f) => f.redactions);
    expect(counted.map((f) => f.key.split('/')[1]).sort()).toEqual(['brand', 'me', 'reputation']);
    // Two per body: the key's value and the note that quotes it.
    expect(counted.map((f) => f.redactions)).toEqual([2, 2, 2]);
    expect(manifest.redactions).toBe(6);
    const me = JSON.parse(
      readFileSync(join(dir, counted.find((f) => f.key.startsWith('raw/me/'))!.key), 'utf8'),
    );
    expect(me.request.redactions).toBe(2);
    expect(me.body.key).toEqual({ value: '[redacted]', note: 'shown once: [redacted]' });
    // Everything else in the body is as sent.
    expect(me.body.plan).toBeDefined();
    const accounts = bq.rows('p', 'vis', 'accounts');
    expect(accounts).toHaveLength(1);
    expect(JSON.stringify(accounts[0]!.payload)).toContain('[redacted]');
  });

  it('a key in a JSON body however it is escaped (\\/, \\u0061) is replaced, and the body stays the same JSON', () => {
    const key = 'live_a/b';
    const text = '{"k":"live_\\u0061\\/b","n":[1,"x live_a/b y"],"live_a/b":true}';
    const out = redactJsonBody(text, JSON.parse(text), [key]);
    expect(out.redactions).toBe(3);
    expect(out.body).toEqual({ k: '[redacted]', n: [1, 'x [redacted] y'], '[redacted]': true });
    expect(JSON.parse(out.text)).toEqual(out.body);
    const plain = '{"a": "live_a/b",  "b": 2}';
    // Only the key changes: spacing and order of what was sent stay.
    expect(redactJsonBody(plain, JSON.parse(plain), [key]).text).toBe('{"a": "[redacted]",  "b": 2}');
    expect(redactJsonBody(plain, JSON.parse(plain), ['absent']).redactions).toBe(0);
  });
});
