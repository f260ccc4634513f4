// What the logs look like: JSON with each key once per line, or pretty lines for a terminal, and in
// both formats no key ever written.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, registerSecret } from '../src/log.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { runVisync } from './helpers/cli-process.js';
import { configFor, configYaml, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { repeatedKeys } from './helpers/json-keys.js';
import { writeConfig } from './helpers/worker-process.js';

function memoryStream() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      cb();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const linesOf = (text: string) => text.split('\n').filter(Boolean);

describe('log output', () => {
  it('repeatedKeys finds a key written twice in one object, and only then', () => {
    expect(repeatedKeys('{"account":"acme","run_id":"r","account":"acme","msg":"x"}')).toEqual(['account']);
    expect(repeatedKeys('{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"\\"a\\":"}')).toEqual([]);
  });

  it('a binding repeated by a child logger or by the call is written once, with the innermost value', () => {
    const { stream, text } = memoryStream();
    const root = createLogger({ stream, format: 'json' });
    const account = root.child({ account: 'acme' });
    const run = account.child({ account: 'acme', run_id: 'r1' });
    run.info({ account: 'acme', run_id: 'r2', brand_id: 'b1' }, 'workspace done');
    const [line] = linesOf(text());
    expect(repeatedKeys(line!)).toEqual([]);
    expect(JSON.parse(line!)).toMatchObject({
      account: 'acme',
      run_id: 'r2',
      brand_id: 'b1',
      msg: 'workspace done',
    });
  });

  it('run --once at debug level writes no line with a repeated key', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }], seed: 3 });
    const dir = tempDir();
    const { logger, lines } = memoryLogger('debug');
    const r = await runInline({ config: configFor(s, dir), store: new FsObjectStore(dir), logger });
    expect(r.status).toBe('succeeded');
    expect(lines.length).toBeGreaterThan(3);
    const bad = lines.filter((l) => repeatedKeys(l).length > 0);
    expect(bad).toEqual([]);
  });

  it('pretty lines are readable, coloured on request, and never show a key', () => {
    const key = 'sk_live_pretty_test_0123456789';
    registerSecret(key);
    const plain = memoryStream();
    const log = createLogger({ stream: plain.stream, format: 'pretty', colorize: false }).child({
      account: 'acme',
    });
    log.warn(
      { account: 'acme', detail: `upstream said ${key}`, nested: { header: `Bearer ${key}` } },
      `call with ${key}`,
    );
    const [line, ...rest] = linesOf(plain.text());
    expect(rest).toEqual([]);
    expect(line).toMatch(/WARN.*call with \[redacted\]/);
    expect(line).not.toContain(key);
    expect(line!.split('"account"').length).toBe(2);
    // The severity JSON logs carry for Cloud Logging says nothing the level name does not.
    expect(line).not.toContain('severity');
    // No escape codes unless asked: the text stays greppable in a file.
    expect(line).not.toContain('\x1b[');

    const coloured = memoryStream();
    createLogger({ stream: coloured.stream, format: 'pretty', colorize: true }).error(`failed with ${key}`);
    expect(coloured.text()).toContain('\x1b[');
    expect(coloured.text()).not.toContain(key);
  });

  it('visync run --once logs JSON when stderr is not a terminal, pretty with --log-format pretty', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 5 });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir);
    const cfg = writeConfig(dir, yaml);
    const key = s.accounts[0]!.keys[0]!;

    const json = await runVisync(['--config', cfg, 'run', '--once', '--log-level', 'debug'], env);
    expect(json.code).toBe(0);
    const lines = linesOf(json.stderr);
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) {
      expect(() => JSON.parse(l)).not.toThrow();
      expect(repeatedKeys(l)).toEqual([]);
    }
    expect(json.stderr).not.toContain(key);
    // What a log collector reads without a parser of its own: level names, Cloud Logging's
    // severity, an ISO-8601 time.
    const entries = lines.map((l) => JSON.parse(l) as { level: unknown; severity: unknown; time: unknown });
    const severities: Record<string, string> = {
      debug: 'DEBUG',
      info: 'INFO',
      warn: 'WARNING',
      error: 'ERROR',
    };
    expect(entries.map((e) => e.level)).toContain('info');
    for (const e of entries) {
      expect(e.severity).toBe(severities[e.level as string]);
      expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }

    const pretty = await runVisync(['--config', cfg, 'run', '--once', '--log-format', 'pretty'], env);
    expect(pretty.code).toBe(0);
    expect(pretty.stderr).toMatch(/INFO.*run started/);
    expect(pretty.stderr).not.toMatch(/^\{/m);
    expect(pretty.stderr).not.toContain(key);
    expect(pretty.stdout).toMatch(/^acme: succeeded \| run /m);
  });

  it('VISYNC_LOG_FORMAT sets the format; a bad --log-format is refused with one line naming the choices, then a pointer to --help', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 5 });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir);
    const cfg = writeConfig(dir, yaml);
    const viaEnv = await runVisync(['--config', cfg, 'run', '--once'], {
      ...env,
      VISYNC_LOG_FORMAT: 'pretty',
    });
    expect(viaEnv.code).toBe(0);
    expect(viaEnv.stderr).toMatch(/INFO.*run started/);
    const bad = await runVisync(['--config', cfg, 'replay', '--run', 'x', '--log-format', 'xml'], env);
    expect(bad.code).toBe(64);
    expect(linesOf(bad.stderr)).toEqual([
      expect.stringMatching(/--log-format.*xml.*pretty, json/),
      '(add --help for usage)',
    ]);
  });
});
