// `visync status` after runs made inline without Redis (`visync run --once` before redis.url was
// configured, or after Redis lost its data: no ledger entry): its "last success" is the newest run
// that may move the last-success mark by the manifests' rule (src/records/history.ts), never "none
// yet" after runs that succeeded. Real runs against the simulator into the fs store, `visync status`
// as a user runs it against a private Redis.
import { describe, expect, it } from 'vitest';
import { manifestRunIds } from '../src/records/history.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { configFile, sim, tempDir, visyncCli } from './helpers/harness.js';
import { jobsConfigFile } from './helpers/jobs.js';

describe('visync status after inline runs', () => {
  it('names the newest succeeded `run --once` as the last success, in text and JSON', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const sinks = { fs: { dir } };
    // The runs without Redis; status with it, over the same store.
    const inline = configFile(s, tempDir(), { sinks }).path;
    const { path } = jobsConfigFile(s, tempDir(), { sinks });
    for (let i = 0; i < 2; i++) {
      const run = await visyncCli(inline, ['run', '--once', '--log-level', 'silent']);
      expect(run.code, run.err.join('\n')).toBe(0);
    }
    const ids = await manifestRunIds(new FsObjectStore(dir), 'acme');
    expect(ids).toHaveLength(2);
    const newest = [...ids].sort().at(-1) as string;

    const text = await visyncCli(path, ['status']);
    expect(text.code).toBe(0);
    // Lines keep to 100 columns: a continuation line is indented further.
    const at = text.out.findIndex((l) => l.startsWith('  last success: '));
    const rest = text.out.slice(at + 1);
    const more = rest.findIndex((l) => !l.startsWith('      '));
    const last = [text.out[at], ...rest.slice(0, more === -1 ? rest.length : more)]
      .map((l) => l?.trim())
      .join(' ');
    expect(last).toMatch(
      new RegExp(
        `^last success: ${newest} \\(sync 3d, succeeded 2/2 workspaces, \\d+ requests, from its manifest\\) finished \\d{4}-\\d{2}-\\d{2}T`,
      ),
    );
    const json = await visyncCli(path, ['status', '--json']);
    const doc = JSON.parse(json.out.join('\n')) as { accounts: { last_success?: Record<string, unknown> }[] };
    expect(doc.accounts[0]?.last_success).toMatchObject({
      run_id: newest,
      status: 'succeeded',
      from: 'manifest',
    });
  }, 120_000);
});
