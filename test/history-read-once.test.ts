// A run reads its account's run history (the manifests listed under runs/account=A/) once, and
// passes it down to the stages that need it: planning the window, an interrupted run, a paused
// account, brand events. Counted on the real fs store.
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../jobs/enqueue.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { configFor, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, waitForRun, worker } from './helpers/jobs.js';

const HISTORY = 'runs/account=acme/';
const realList = FsObjectStore.prototype.list;
let listed: string[] = [];

/** Counts the fs store's listings of the account's run history, in this process. */
function countHistoryReads(): void {
  listed = [];
  FsObjectStore.prototype.list = function (this: FsObjectStore, prefix: string) {
    listed.push(prefix);
    return realList.call(this, prefix);
  };
}

afterEach(() => {
  FsObjectStore.prototype.list = realList;
});

describe('a run reads its history once', () => {
  it('run --once: one listing of the account runs per run', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const config = configFor(s, dir);
    const run = () => runInline({ config, store: new FsObjectStore(dir), logger: memoryLogger().logger });
    expect((await run()).status).toBe('succeeded');
    countHistoryReads();
    expect((await run()).status).toBe('succeeded');
    expect(listed.filter((p) => p === HISTORY)).toHaveLength(1);
  });

  it('a queued run: one listing of the account runs per run', async () => {
    const config = jobsConfig(await sim({ accounts: [{ name: 'acme', workspaces: 2 }] }), tempDir());
    const c = jobsClient(config);
    await worker(config);
    const sync = async (kind: 'backfill' | 'sync') => {
      const { runId } = await enqueueRun(c.queues, c.ledger, config, { kind, account: 'acme' });
      return (await waitForRun(config, runId)).status;
    };
    // A run before, so the run has history to read.
    expect(await sync('backfill')).toBe('succeeded');
    countHistoryReads();
    expect(await sync('sync')).toBe('succeeded');
    // Its finish job's (the run job reads the last success from the ledger).
    expect(listed.filter((p) => p === HISTORY)).toHaveLength(1);
  });
});
