// run --once at a real terminal: a tmux pane is the terminal, and its screen (what a person sees,
// after every cursor move) is what the test reads.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { etaSeconds, RunProgress } from '../src/cli/progress.js';
import { BIN } from './helpers/cli-process.js';
import { configYaml, sim, tempDir } from './helpers/harness.js';
import { waitFor } from './helpers/wait-for.js';
import { writeConfig } from './helpers/worker-process.js';

const servers: string[] = [];
afterEach(() => {
  for (const socket of servers.splice(0)) {
    try {
      execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // Already gone.
    }
  }
});

/** Runs `command` in a detached 110x40 tmux pane that stays on screen after the command exits. */
function tmuxPane(command: string, dir: string) {
  const socket = `visync-test-${randomUUID().slice(0, 8)}`;
  const conf = join(dir, 'tmux.conf');
  writeFileSync(conf, 'set -g remain-on-exit on\n');
  servers.push(socket);
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  tmux('-f', conf, 'new-session', '-d', '-x', '110', '-y', '40', command);
  return {
    /** The screen and what scrolled off it, wrapped lines joined. */
    screen: () => tmux('capture-pane', '-p', '-J', '-S', '-'),
    async exited(timeoutMs = 20_000): Promise<void> {
      await waitFor(() => tmux('display', '-p', '#{pane_dead}').trim() === '1', {
        what: () => `the command to end:\n${this.screen()}`,
        timeoutMs,
        intervalMs: 100,
      });
    },
  };
}

/** `[hh:mm:ss.mmm] LEVEL: message {fields}` with fields that parse, so nothing was written into them. */
function wholeLogLine(line: string): boolean {
  const m = /^\[\d\d:\d\d:\d\d\.\d{3}\] (?:INFO|WARN|ERROR): [^{]+?(?: (\{.*))?$/.exec(line);
  if (!m) return false;
  try {
    if (m[1]) JSON.parse(m[1]);
    return true;
  } catch {
    return false;
  }
}

describe('run --once progress', () => {
  it('the time left is the longer of the rate bound and the pace so far', () => {
    const limit = { requests: 120, windowMs: 60_000 };
    // 10 of 100 done with 7 calls each: 630 calls left at 2 per second.
    expect(etaSeconds({ done: 10, total: 100, workspaceCalls: 70, limit, elapsedMs: 5_000 })).toBe(315);
    // An API slower than the limit: 60 s per workspace so far.
    expect(etaSeconds({ done: 10, total: 100, workspaceCalls: 70, limit, elapsedMs: 600_000 })).toBe(5400);
    expect(etaSeconds({ done: 0, total: 100, workspaceCalls: 0, limit, elapsedMs: 1_000 })).toBeUndefined();
  });

  it('log lines written while no bar is drawn (a run that fails in discovery) are printed at once', () => {
    let text = '';
    const terminal = Object.assign(
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          text += chunk.toString('utf8');
          cb();
        },
      }),
      { isTTY: true, columns: 100 },
    ) as unknown as NodeJS.WriteStream;
    const progress = new RunProgress(terminal);
    progress.logStream.write('[12:00:00.000] ERROR: account stopped {"account":"acme"}\n');
    expect(text).toBe('[12:00:00.000] ERROR: account stopped {"account":"acme"}\n');
    progress.stop();
    expect(text).toBe('[12:00:00.000] ERROR: account stopped {"account":"acme"}\n');
  });

  it('on a terminal: one bar per account, whole log lines above them, the summary after', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 4 },
        { name: 'globex-intl', workspaces: 3 },
      ],
      seed: 2,
    });
    const dir = tempDir();
    // 15 calls a second: the run takes a few seconds, so the bars are drawn while it goes.
    const limited = { requestsPerMinute: 15, rateWindowSeconds: 1 };
    const { yaml, env } = configYaml(s, dir, { accounts: { acme: limited, 'globex-intl': limited } });
    const cfg = writeConfig(dir, yaml);
    const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const pane = tmuxPane(
      ['env', 'NO_COLOR=1', ...vars, process.execPath, BIN, '--config', cfg, 'run', '--once'].join(' '),
      dir,
    );
    await pane.exited();
    const screen = pane.screen();
    const lines = screen.split('\n').filter((l) => l.trim());
    expect(screen).toMatch(/^acme {8}\[#{20}\] 4\/4 workspaces \| \d+ requests \| waited [\d.]+s$/m);
    expect(screen).toMatch(/^globex-intl \[#{20}\] 3\/3 workspaces \| \d+ requests \| waited [\d.]+s$/m);
    expect(screen).toMatch(/^acme: succeeded \| run \S+ \| 4\/4 workspaces/m);
    expect(screen).toMatch(/^globex-intl: succeeded \| run \S+ \| 3\/3 workspaces/m);
    // Nothing torn: every row is a whole log line, a bar, or a summary line.
    const whole = [
      { test: wholeLogLine },
      /^(acme|globex-intl) +\[[#.]{20}\] \d+\/\d+ workspaces \| \d+ requests \| waited [\d.]+s( \| ETA \S+)?$/,
      /^(acme|globex-intl): succeeded \| run .* \| manifest \S+manifest\.json$/,
      /^Pane is dead/,
    ];
    const torn = lines.filter((l) => !whole.some((re) => re.test(l)));
    expect(torn, screen).toEqual([]);
    expect(
      lines.filter((l) => l.includes('] INFO: run started')),
      screen,
    ).toHaveLength(2);
  });
});
