// Re-reads the config (and its accountsFrom source) when it changes, so a long-running worker picks
// up added and removed accounts without a restart. fs.watch on the folders is the fast path; a
// periodic re-read is the fallback, because fs.watch misses events on some mounts (NFS, some
// container volumes) and a Kubernetes ConfigMap changes by swapping a symlink. Only a valid config
// is handed on: an invalid edit is logged once and the previous config stays in force.
import { type FSWatcher, readdirSync, type Stats, statSync, watch } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../util/errors.js';
import { accountSettings } from './account-settings.js';
import { ConfigError } from './config-error.js';
import {
  type ApiKeysNeed,
  type ConfigWithOrigins,
  readConfigDetailed,
  resolveConfigPath,
} from './read-config.js';
import type { Config } from './schema.js';

export interface AccountChanges {
  added: string[];
  removed: string[];
  /** Accounts whose effective settings (key, URL, brands, limit, schedule, sinks) changed. */
  changed: string[];
}

export interface WatchConfigOptions {
  /** The config in force now (what the caller loaded at start); default: loaded here, and it must be valid. */
  current?: ConfigWithOrigins;
  env?: NodeJS.ProcessEnv;
  apiKeys?: ApiKeysNeed;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Quiet time after the last file event before re-reading (editors write in several steps). Default 500 ms. */
  debounceMs?: number;
  /** Re-read this often whatever fs.watch says; 0 turns it off. Default 60 s. */
  pollMs?: number;
  /** false: no fs.watch, the periodic re-read only (tests; mounts where watching fails). Default true. */
  useFsWatch?: boolean;
  /**
   * Told when reloading starts or stops failing: the reason (an invalid new config, or applying it
   * failed), then undefined once a reload succeeds. The worker shows it in `visync status` and
   * /metrics, since a refused edit otherwise shows only in its log.
   */
  onReloadFailure?: (reason: string | undefined) => void | Promise<void>;
}

export interface ConfigWatcher {
  /** The config in force. */
  readonly current: ConfigWithOrigins;
  /** Re-reads now (also what file events and the timer do); resolves when done. */
  reload(): Promise<void>;
  close(): void;
}

export type ConfigChangeHandler = (config: Config, changes: AccountChanges) => void | Promise<void>;

/**
 * Calls `onChange` after each change that leaves a valid config different from the one in force,
 * with the accounts added, removed and changed. Reloads never overlap; one arriving during another
 * runs after it.
 */
export function watchConfig(
  path: string | undefined,
  onChange: ConfigChangeHandler,
  o: WatchConfigOptions,
): ConfigWatcher {
  const env = o.env ?? process.env;
  const watching = new ConfigWatch(resolve(resolveConfigPath(path, env)), env, onChange, o);
  return {
    get current() {
      return watching.current;
    },
    reload: () => watching.reload(),
    close: () => watching.close(),
  };
}

class ConfigWatch {
  current: ConfigWithOrigins;
  private fingerprint: string;
  private lastError: string | undefined;
  private failure: string | undefined;
  private closed = false;
  private running: Promise<void> | undefined;
  private again = false;
  // What the periodic re-read compares first: parsing a thousand account files each minute
  // would be a second of work on the worker's event loop; stat-ing them takes milliseconds.
  private seen: string;
  private onlyIfChanged = true;
  private debounce: NodeJS.Timeout | undefined;
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly onChange: ConfigChangeHandler,
    private readonly o: WatchConfigOptions,
  ) {
    this.current = o.current ?? this.load();
    this.fingerprint = JSON.stringify(this.current.config);
    this.seen = stamp(file, this.current, env);
    this.watchFolders(this.current);
    const pollMs = o.pollMs ?? 60_000;
    this.timer = pollMs > 0 ? setInterval(() => void this.reload(true), pollMs) : undefined;
    this.timer?.unref();
  }

  reload(ifChanged = false): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.onlyIfChanged &&= ifChanged;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.reloadUntilSettled();
    return this.running;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.debounce);
    if (this.timer) clearInterval(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private load(): ConfigWithOrigins {
    return readConfigDetailed(this.file, this.env, undefined, this.o.apiKeys ?? 'required');
  }

  /** Runs the reloads asked for while one was running; a reload that throws is logged, not thrown. */
  private async reloadUntilSettled(): Promise<void> {
    try {
      do {
        this.again = false;
        const only = this.onlyIfChanged;
        this.onlyIfChanged = true;
        await this.reloadOnce(only);
      } while (this.again && !this.closed);
    } catch (err) {
      this.o.logger.warn(`config reload failed: ${errorMessage(err)}`);
      await this.report(`config reload failed: ${errorMessage(err)}`);
    } finally {
      this.running = undefined;
    }
  }

  private async reloadOnce(ifChanged: boolean): Promise<void> {
    const now = stamp(this.file, this.current, this.env);
    if (ifChanged && now === this.seen) return;
    this.seen = now;
    const next = this.loadValid();
    if (!next) return this.report(`the new config is invalid: ${this.lastError}`);
    // The files of the new config (a new accountsFrom, new key files) are what the next re-read compares.
    this.seen = stamp(this.file, next, this.env);
    const print = JSON.stringify(next.config);
    if (print === this.fingerprint) {
      this.watchFolders(next);
      return this.report(undefined);
    }
    await this.apply(next, print);
  }

  /** Passes a change of the failure state on; a hook that fails is logged, never thrown. */
  private async report(failure: string | undefined): Promise<void> {
    if (failure === this.failure) return;
    this.failure = failure;
    try {
      await this.o.onReloadFailure?.(failure);
    } catch (err) {
      this.o.logger.warn(`config reload: could not record the reload's outcome: ${errorMessage(err)}`);
    }
  }

  /** The config as the files say now, or undefined while they say something invalid. */
  private loadValid(): ConfigWithOrigins | undefined {
    try {
      const next = this.load();
      this.lastError = undefined;
      return next;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const line = err.message.split('\n').join('; ');
      // One line per distinct problem, not one per poll.
      if (line !== this.lastError) {
        this.o.logger.warn(`config reload: keeping the config in force, the new one is invalid: ${line}`);
      }
      this.lastError = line;
      return undefined;
    }
  }

  private async apply(next: ConfigWithOrigins, print: string): Promise<void> {
    const changes = accountChanges(this.current.config, next.config);
    this.current = next;
    this.fingerprint = print;
    this.watchFolders(next);
    this.o.logger.info(
      { added: changes.added.length, removed: changes.removed.length, changed: changes.changed.length },
      `config reloaded: ${describeChanges(changes)}`,
    );
    try {
      await this.onChange(next.config, changes);
    } catch (err) {
      this.o.logger.warn(`config reload: applying the new config failed: ${errorMessage(err)}`);
      return this.report(`applying the new config failed: ${errorMessage(err)}`);
    }
    await this.report(undefined);
  }

  private readonly onEvent = () => {
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reload(), this.o.debounceMs ?? 500);
    this.debounce.unref();
  };

  /** Watches the config's folder and the accountsFrom source's, and stops watching folders left behind. */
  private watchFolders(loaded: ConfigWithOrigins): void {
    if (this.o.useFsWatch === false || this.closed) return;
    const wanted = new Set([
      dirname(this.file),
      ...(loaded.accountsFrom ? [folderOf(loaded.accountsFrom)] : []),
    ]);
    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of wanted) if (!this.watchers.has(dir)) this.watchFolder(dir);
  }

  private watchFolder(dir: string): void {
    try {
      const w = watch(dir, { persistent: false }, this.onEvent);
      // A folder that goes away (or a mount that cannot be watched) leaves the periodic re-read.
      w.on('error', () => {
        w.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, w);
    } catch {
      // Not watchable here: the periodic re-read covers it.
    }
  }
}

/**
 * Modification time, size and inode of every file the config was read from: the config file, the
 * accountsFrom folder and its files, key files, and the files NAME_FILE variables name.
 */
function stamp(file: string, loaded: ConfigWithOrigins, env: NodeJS.ProcessEnv): string {
  const parts: string[] = [];
  // The stat, so the accountsFrom source is not stat'ed a second time to learn if it is a folder.
  const add = (p: string): Stats | undefined => {
    try {
      const s = statSync(p);
      parts.push(`${p} ${s.mtimeMs} ${s.size} ${s.ino}`);
      return s;
    } catch {
      parts.push(`${p} -`);
      return undefined;
    }
  };
  add(file);
  if (loaded.accountsFrom && add(loaded.accountsFrom)?.isDirectory()) {
    try {
      for (const name of readdirSync(loaded.accountsFrom).sort()) add(join(loaded.accountsFrom, name));
    } catch {
      // Gone since the stat: its entry above is its state a moment ago; the next poll sees it gone.
    }
  }
  for (const o of loaded.origins.values()) if (o.keyFile) add(o.keyFile);
  for (const [name, value] of Object.entries(env)) if (name.endsWith('_FILE') && value) add(value);
  return parts.join('\n');
}

/** The folder whose entries change when the source does: a folder itself, or a file's folder. */
function folderOf(path: string): string {
  try {
    return statSync(path).isDirectory() ? path : dirname(path);
  } catch {
    return dirname(path);
  }
}

function accountChanges(before: Config, after: Config): AccountChanges {
  const settings = (c: Config) =>
    new Map(c.accounts.map((a) => [a.name, JSON.stringify(accountSettings(c, a))] as const));
  const old = settings(before);
  const now = settings(after);
  return {
    added: [...now.keys()].filter((n) => !old.has(n)),
    removed: [...old.keys()].filter((n) => !now.has(n)),
    changed: [...now].filter(([n, s]) => old.has(n) && old.get(n) !== s).map(([n]) => n),
  };
}

function describeChanges(c: AccountChanges): string {
  const part = (what: string, names: string[]) =>
    names.length === 0
      ? []
      : [
          `${what} ${names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ')}`,
        ];
  const parts = [...part('added', c.added), ...part('removed', c.removed), ...part('changed', c.changed)];
  return parts.length ? parts.join('; ') : 'no account changed (other settings did)';
}
