// Fields from the API reach a person's terminal escaped (src/util/terminal.ts): a workspace id or a
// claim holding ESC sequences, CR or LF neither retitles or recolours the terminal nor forges a line
// in `visync events`, `visync report`'s result lines, `visync runs` and `runs show`; --json carries
// the raw value, as JSON escapes it.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { runVisync } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';

const FORGED = 'acme fake-ws 2026-10: /etc/passwd';
// A title change, a colour, a forged line and a carriage return, in one workspace id.
const HOSTILE_ID = `ws-\x1b]0;pwned\x07\x1b[31mred\n${FORGED}\r\u009b2J`;
const HOSTILE_CLAIM = `claim\x1b[2J\nacme ${FORGED}\tend`;
const TODAY = '2026-11-10';
const ACCOUNTS = [{ name: 'acme', workspaces: [HOSTILE_ID, 'ws-plain'] }];

/** No C0 (but the line's own end), DEL or C1 character in any line, and no forged line. */
function expectSafe(lines: readonly string[]): void {
  const text = lines.join('\n');
  for (const line of lines) {
    expect(line, JSON.stringify(line)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(line.startsWith(FORGED)).toBe(false);
  }
  expect(text).not.toMatch(new RegExp(`^${FORGED}`, 'm'));
}

async function twoNights(dir: string) {
  const first = await h.sim({ seed: 3, accounts: ACCOUNTS, today: TODAY });
  const r1 = await h.runOnceCli(first, dir, []);
  expect(r1.code, r1.err.join('\n')).toBe(0);
  const changes = [
    { kind: 'false-claim' as const, account: 'acme', workspace: 0, engine: 'chatgpt', claim: HOSTILE_CLAIM },
  ];
  const second = await h.sim({ seed: 3, accounts: ACCOUNTS, today: TODAY, changes });
  const config = h.configFile(second, dir).path;
  const r2 = await h.visyncCli(config, ['run', '--once', '--log-level', 'silent']);
  expect(r2.code, r2.err.join('\n')).toBe(0);
  expectSafe([...r1.out, ...r1.err, ...r2.out, ...r2.err]);
  return config;
}

describe('terminal output escapes fields from the API', () => {
  it('events, report, runs and runs show: escaped lines, no forged line; --json carries the raw value', async () => {
    const dir = h.tempDir();
    const config = await twoNights(dir);

    // events, as a user's terminal gets it: the bytes a real process writes.
    const events = await runVisync(['--config', config, 'events']);
    expect(events.code, events.stderr).toBe(0);
    const lines = events.stdout.trimEnd().split('\n');
    expectSafe(lines);
    // The workspace reads by its name (issue #39): its hostile id only in --json, below.
    expect(events.stdout).not.toContain('pwned');
    expect(events.stdout).toContain('claim\\x1b[2J\\nacme acme fake-ws 2026-10: /etc/passwd\\tend');
    const json = await h.visyncCli(config, ['events', '--json']);
    const parsed = JSON.parse(json.out.join('\n')) as { brand_id: string; after: string | null }[];
    expect(parsed.some((e) => e.brand_id === HOSTILE_ID)).toBe(true);
    const claims = parsed.map((e) =>
      e.after ? (JSON.parse(e.after) as { claim?: string }).claim : undefined,
    );
    expect(claims).toContain(HOSTILE_CLAIM);

    // One workspace, chosen by its hostile id: the events of that workspace only.
    const one = await h.visyncCli(config, ['events', '--brand', HOSTILE_ID]);
    expect(one.code, one.err.join('\n')).toBe(0);
    expect(one.out.length).toBeGreaterThan(0);
    expectSafe(one.out);

    const report = await h.visyncCli(config, ['report', '--out', h.tempDir(), '--format', 'json']);
    expect(report.code, report.err.join('\n')).toBe(0);
    expectSafe([...report.out, ...report.err]);
    expect(report.out.some((l) => l.startsWith('acme ws-\\x1b]0;pwned'))).toBe(true);
    const reportJson = await h.visyncCli(config, [
      'report',
      '--out',
      h.tempDir(),
      '--format',
      'json',
      '--json',
    ]);
    const written = JSON.parse(reportJson.out.join('\n')) as { reports: { brand_id: string }[] };
    expect(written.reports.map((r) => r.brand_id)).toContain(HOSTILE_ID);

    const runs = await h.visyncCli(config, ['runs']);
    expect(runs.code).toBe(0);
    expectSafe(runs.out);
    const runId = (
      JSON.parse((await h.visyncCli(config, ['runs', '--json'])).out.join('\n')) as { run_id: string }[]
    )[0]!.run_id;
    const show = await h.visyncCli(config, ['runs', 'show', runId]);
    expect(show.code, show.err.join('\n')).toBe(0);
    expectSafe(show.out);
    expect(show.out.join('\n')).toContain('ws-\\x1b]0;pwned');
    const showJson = JSON.parse(
      (await h.visyncCli(config, ['runs', 'show', runId, '--json'])).out.join('\n'),
    ) as {
      workspaces: { brand_id: string }[];
    };
    expect(showJson.workspaces.map((w) => w.brand_id)).toContain(HOSTILE_ID);
  }, 120_000);
});

describe('pretty log lines escape fields too', () => {
  it('a message and a field holding ESC, CR and LF print as one line, escaped', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString('utf8'));
        cb();
      },
    });
    const logger = createLogger({ format: 'pretty', colorize: false, stream, level: 'info' });
    logger.warn({ brand_id: HOSTILE_ID }, `workspace ${HOSTILE_ID} failed`);
    expect(lines).toHaveLength(1);
    const line = (lines[0] as string).replace(/\n$/, '');
    expectSafe([line]);
    expect(line).toContain('workspace ws-\\x1b]0;pwned');
  });
});
