// Why a queued run failed or ended partial, where a user looks: `enqueue --wait` names each failed
// workspace with its reason, and `status` shows the reason of each failed or partial run.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startWorker, type WorkerHandle } from '../jobs/worker.js';
import { main } from '../src/cli/main.js';
import { parseConfig } from '../src/config/load.js';
import { configYaml, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { writeConfig } from './helpers/worker-process.js';

const handles: WorkerHandle[] = [];
afterEach(async () => {
  while (handles.length) await handles.pop()?.close(5000);
  for (const k of Object.keys(process.env)) if (k.startsWith('SIM_')) delete process.env[k];
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }, out, err };
}

describe('reasons of failed and partial runs', () => {
  it('enqueue --wait prints each failed workspace and why; status shows the reason in the table and --json', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }] });
    const broken = s.accounts[0]!.workspaceIds[1]!;
    s.addFault({
      account: 'acme',
      endpoint: 'brand',
      brandId: broken,
      kind: 'status',
      status: 400,
      times: Infinity,
    });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, {
      top: {
        redis: { url: inject('redisUrl'), prefix: `why-${randomUUID().slice(0, 8)}` },
        jobs: { lockSeconds: 2 },
      },
    });
    const path = writeConfig(dir, yaml);
    Object.assign(process.env, env);
    const config = parseConfig(yaml, { source: path, env });
    handles.push(await startWorker({ config, logger: memoryLogger('warn').logger, concurrency: 4 }));

    const wait = capture();
    expect(await main(['node', 'visync', '--config', path, 'enqueue', 'sync', '--wait'], wait.io)).toBe(2);
    const reason = new RegExp(`acme: workspace ${broken} failed: .*400`);
    expect(wait.err.filter((l) => reason.test(l))).toHaveLength(1);
    expect(wait.err.find((l) => reason.test(l))).toMatch(/^visync: /);

    const table = capture();
    expect(await main(['node', 'visync', '--config', path, 'status'], table.io)).toBe(0);
    const partial = table.out.find((l) => l.trimStart().startsWith('partial: '));
    expect(partial).toMatch(new RegExp(`3/3 workspaces \\(1 failed\\).*: workspace ${broken} failed: .*400`));

    const json = capture();
    expect(await main(['node', 'visync', '--config', path, 'status', '--json'], json.io)).toBe(0);
    const run = JSON.parse(json.out.join('\n')).accounts[0].failed[0];
    expect(run.status).toBe('partial');
    expect(run.reasons).toEqual([expect.stringMatching(new RegExp(`^workspace ${broken} failed: .*400`))]);
  });
});
