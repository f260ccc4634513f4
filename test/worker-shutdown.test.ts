// An idle worker stops on SIGTERM at once: the shutdown grace is a bound for active jobs, not a
// wait every stop pays.
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { configYaml, sim, tempDir } from './helpers/harness.js';
import { spawnWorker, writeConfig } from './helpers/worker-process.js';

describe('worker shutdown', () => {
  // The test timeout (startup included, on a loaded machine) is far below the 300 s grace: a worker
  // that waits out its grace fails it.
  it('an idle worker exits 0 on SIGTERM without waiting out a 300 s grace', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, {
      top: {
        redis: { url: inject('redisUrl'), prefix: `s-${randomUUID().slice(0, 8)}` },
        shutdownGraceSeconds: 300,
      },
    });
    const w = await spawnWorker(writeConfig(dir, yaml), env, 2);
    w.child.kill('SIGTERM');
    const exit = await w.exited;
    expect(exit).toEqual({ code: 0, signal: null });
  }, 90_000);
});
