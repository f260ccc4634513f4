// run --once at a terminal: one progress bar per account, with log lines printed above the bars.
import { MultiBar, type SingleBar } from 'cli-progress';
import type { ExtractProgress } from '../extract/extract-account.js';
import { formatDuration } from './duration.js';

interface AccountState {
  bar: SingleBar;
  progress: ExtractProgress;
  /** Calls of discovery (/me, /brands), left out of the mean calls per workspace. */
  discoveryCalls: number;
  startedAt: number;
}

/**
 * Bars are drawn by cli-progress on a timer; log lines go through its log buffer, which prints
 * them above the bars at the next redraw, so a line never lands in the middle of a bar.
 */
export class RunProgress {
  readonly #bars: MultiBar;
  readonly #accounts = new Map<string, AccountState>();
  #stopped = false;

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly now: () => number = Date.now,
  ) {
    this.#bars = new MultiBar({
      stream,
      fps: 5,
      // Every bar on every redraw: a log line printed above may have overwritten one.
      forceRedraw: true,
      // Bars are cut to the terminal's width; log lines keep wrapping (the other choice turns
      // wrapping off for the whole terminal while the bars run).
      linewrap: true,
      // No SIGINT/SIGTERM handler: one would keep Ctrl-C from ending the command.
      gracefulExit: false,
      format: (_options, _params, payload: { account: string }) => this.#line(payload.account),
    });
  }

  /** The destination for log lines while the bars are on screen. */
  readonly logStream = {
    write: (text: string): boolean => {
      // No bar on screen (yet, or any more): nothing to print around.
      if (this.#stopped || this.#accounts.size === 0) return this.stream.write(text);
      // Printed where the bars were: each line first erases the screen below the cursor, so a line
      // that wraps onto a second row does not mix with what a bar left there (bars redraw after).
      for (const line of text.split('\n')) if (line) this.#bars.log(`\x1b[0J${line}\n`);
      return true;
    },
  } as unknown as NodeJS.WritableStream;

  /** For runInline's onProgress. */
  update = (account: string, p: ExtractProgress): void => {
    if (this.#stopped) return;
    const known = this.#accounts.get(account);
    if (known) {
      known.progress = p;
      known.bar.setTotal(p.workspacesTotal);
      known.bar.update(p.workspacesDone);
      return;
    }
    // The first report comes after discovery, before any workspace.
    this.#accounts.set(account, {
      bar: this.#bars.create(p.workspacesTotal, p.workspacesDone, { account }),
      progress: p,
      discoveryCalls: p.requests.calls,
      startedAt: this.now(),
    });
  };

  /** Draws the bars a last time, prints pending log lines, and gives the terminal back. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    // No bar drawn yet (discovery failed everywhere): nothing to clean up on screen.
    if (this.#accounts.size === 0) return;
    // stop() alone drops log lines still in the buffer; update() prints them first.
    this.#bars.update();
    this.#bars.stop();
  }

  #line(account: string): string {
    const s = this.#accounts.get(account);
    if (!s) return account;
    const p = s.progress;
    const width = Math.max(...[...this.#accounts.keys()].map((a) => a.length));
    const slots = 20;
    const filled = p.workspacesTotal ? Math.round((p.workspacesDone / p.workspacesTotal) * slots) : 0;
    const failed = p.workspacesFailed ? ` (${p.workspacesFailed} failed)` : '';
    const eta =
      p.workspacesDone < p.workspacesTotal
        ? ` | ETA ${formatDuration(this.#etaSeconds(s) ?? Number.NaN)}`
        : '';
    return (
      `${account.padEnd(width)} [${'#'.repeat(filled)}${'.'.repeat(slots - filled)}] ` +
      `${p.workspacesDone}/${p.workspacesTotal} workspaces${failed} | ${p.requests.calls} requests | ` +
      `waited ${formatDuration(p.requests.waited_ms / 1000)}${eta}`
    );
  }

  /**
   * The rate limit bounds how soon the rest can be done: calls still to make (workspaces left
   * times the mean calls per finished workspace) over the calls allowed per window. When the API
   * is slower than that bound, the pace so far says more, so the longer of the two is shown.
   */
  #etaSeconds(s: AccountState): number | undefined {
    const p = s.progress;
    return etaSeconds({
      done: p.workspacesDone,
      total: p.workspacesTotal,
      workspaceCalls: p.requests.calls - s.discoveryCalls,
      limit: p.limit,
      elapsedMs: this.now() - s.startedAt,
    });
  }
}

export function etaSeconds(o: {
  done: number;
  total: number;
  workspaceCalls: number;
  limit: { requests: number; windowMs: number };
  elapsedMs: number;
}): number | undefined {
  if (o.done === 0) return undefined;
  const left = o.total - o.done;
  const callsLeft = (o.workspaceCalls / o.done) * left;
  const rateBound = (callsLeft / o.limit.requests) * (o.limit.windowMs / 1000);
  const pace = (o.elapsedMs / 1000 / o.done) * left;
  return Math.max(rateBound, pace);
}

/** Bars only where someone watches them: stderr is a terminal and the logs are pretty. */
export function wantsProgress(format: string, stream: NodeJS.WriteStream = process.stderr): boolean {
  return format === 'pretty' && stream.isTTY === true;
}
