// Re-reads the config (and its accountsFrom source) when it changes, so a long-running worker picks
// up added and removed accounts without a restart. fs.watch on the folders is the fast path; a
// periodic re-read is the fallback, because fs.watch misses events on some mounts (NFS, some
// container volumes) and a Kubernetes ConfigMap changes by swapping a symlink. Only a valid config
// is handed on: an invalid edit is logged once and the previous config stays in force.
import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { accountSettings } from './account-settings.js';
import { ConfigError } from './config-error.js';
import { type ApiKeysNeed, type LoadedConfig, loadConfigDetailed, resolveConfigPath } from './load.js';
import type { Config } from './schema.js';

export interface AccountChanges {
  added: string[];
  removed: string[];
  /** Accounts whose effective settings (key, URL, brands, limit, schedule, sinks) changed. */
  changed: string[];
}

export interface WatchConfigOptions {
  /** The config in force now (what the caller loaded at start); default: loaded here, and it must be valid. */
  current?: LoadedConfig;
  env?: NodeJS.ProcessEnv;
  apiKeys?: ApiKeysNeed;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Quiet time after the last file event before re-reading (editors write in several steps). Default 500 ms. */
  debounceMs?: number;
  /** Re-read this often whatever fs.watch says; 0 turns it off. Default 60 s. */
  pollMs?: number;
  /** false: no fs.watch, the periodic re-read only (tests; mounts where watching fails). Default true. */
  useFsWatch?: boolean;
}

export interface ConfigWatcher {
  /** The config in force. */
  readonly current: LoadedConfig;
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
  const file = resolve(resolveConfigPath(path, env));
  const load = () => loadConfigDetailed(file, env, undefined, o.apiKeys ?? 'required');
  let current = o.current ?? load();
  let fingerprint = JSON.stringify(current.config);
  let lastError: string | undefined;
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;

  // What the periodic re-read compares first: parsing a thousand account files each minute
  // would be a second of work on the worker's event loop; stat-ing them takes milliseconds.
  let seen = stamp(file, current, env);
  let onlyIfChanged = true;

  const reloadOnce = async (ifChanged: boolean) => {
    const now = stamp(file, current, env);
    if (ifChanged && now === seen) return;
    seen = now;
    let next: LoadedConfig;
    try {
      next = load();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      const line = err.message.split('\n').join('; ');
      // One line per distinct problem, not one per poll.
      if (line !== lastError) {
        o.logger.warn(`config reload: keeping the config in force, the new one is invalid: ${line}`);
      }
      lastError = line;
      return;
    }
    lastError = undefined;
    // The files of the new config (a new accountsFrom, new key files) are what the next re-read compares.
    seen = stamp(file, next, env);
    const print = JSON.stringify(next.config);
    if (print === fingerprint) {
      watchFolders(next);
      return;
    }
    const changes = accountChanges(current.config, next.config);
    current = next;
    fingerprint = print;
    watchFolders(next);
    o.logger.info(
      { added: changes.added.length, removed: changes.removed.length, changed: changes.changed.length },
      `config reloaded: ${describeChanges(changes)}`,
    );
    try {
      await onChange(next.config, changes);
    } catch (err) {
      o.logger.warn(`config reload: applying the new config failed: ${(err as Error).message}`);
    }
  };

  const reload = (ifChanged = false): Promise<void> => {
    if (closed) return Promise.resolve();
    onlyIfChanged &&= ifChanged;
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          const only = onlyIfChanged;
          onlyIfChanged = true;
          await reloadOnce(only);
        } while (again && !closed);
      } catch (err) {
        o.logger.warn(`config reload failed: ${(err as Error).message}`);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  let debounce: NodeJS.Timeout | undefined;
  const onEvent = () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => void reload(), o.debounceMs ?? 500);
    debounce.unref();
  };

  const watchers = new Map<string, FSWatcher>();
  const watchFolders = (loaded: LoadedConfig) => {
    if (o.useFsWatch === false || closed) return;
    const wanted = new Set([dirname(file), ...(loaded.accountsFrom ? [folderOf(loaded.accountsFrom)] : [])]);
    for (const [dir, w] of watchers) {
      if (!wanted.has(dir)) {
        w.close();
        watchers.delete(dir);
      }
    }
    for (const dir of wanted) {
      if (watchers.has(dir)) continue;
      try {
        const w = watch(dir, { persistent: false }, onEvent);
        // A folder that goes away (or a mount that cannot be watched) leaves the periodic re-read.
        w.on('error', () => {
          w.close();
          watchers.delete(dir);
        });
        watchers.set(dir, w);
      } catch {
        // Not watchable here: the periodic re-read covers it.
      }
    }
  };
  watchFolders(current);

  const pollMs = o.pollMs ?? 60_000;
  const timer = pollMs > 0 ? setInterval(() => void reload(true), pollMs) : undefined;
  timer?.unref();

  return {
    get current() {
      return current;
    },
    reload: () => reload(),
    close() {
      closed = true;
      clearTimeout(debounce);
      if (timer) clearInterval(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

/**
 * Modification time, size and inode of every file the config was read from: the config file, the
 * accountsFrom folder and its files, key files, and the files NAME_FILE variables name.
 */
function stamp(file: string, loaded: LoadedConfig, env: NodeJS.ProcessEnv): string {
  const parts: string[] = [];
  const add = (p: string) => {
    try {
      const s = statSync(p);
      parts.push(`${p} ${s.mtimeMs} ${s.size} ${s.ino}`);
    } catch {
      parts.push(`${p} -`);
    }
  };
  add(file);
  if (loaded.accountsFrom) {
    add(loaded.accountsFrom);
    try {
      if (statSync(loaded.accountsFrom).isDirectory()) {
        for (const name of readdirSync(loaded.accountsFrom).sort()) add(join(loaded.accountsFrom, name));
      }
    } catch {
      // Gone: its own entry above already says so.
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

export function accountChanges(before: Config, after: Config): AccountChanges {
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
