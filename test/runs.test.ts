// `visync runs`: run history read back from the manifests in the sink, with no Redis configured.
import { describe, expect, it } from 'vitest';
import { configYaml, sim, tempDir, visyncCli } from './helpers/harness.js';
import { freePort } from './helpers/net.js';
import { writeConfig } from './helpers/worker-process.js';

/** Run ids from `run --once` summary lines, by account. */
function runIds(lines: string[]): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const l of lines) {
    const m = /^([a-z0-9-]+): \w+ \| run (\S+) \|/.exec(l);
    if (m) ids[m[1]!] = m[2]!;
  }
  return ids;
}

interface RunRow {
  run_id: string;
  account: string;
  kind: string;
  status: string;
  started_at: string;
  duration_seconds: number;
  workspaces: { succeeded: number; total: number };
  requests: number;
  reason?: string;
}

describe('visync runs', () => {
  it('lists the runs of two run --once, newest first, with the reason of a failed one; --json, --limit, --account', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 1, plan: 'starter' },
        { name: 'gamma', workspaces: 1 },
      ],
    });
    const dir = tempDir();
    // gamma asks for a workspace it does not own: its run fails workspace by workspace.
    const { yaml, env } = configYaml(s, dir, { accounts: { gamma: { brands: ['nope'] } } });
    Object.assign(process.env, env);
    const path = writeConfig(dir, yaml);

    const first = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
    expect(first.code).toBe(2);
    const second = await visyncCli(path, ['run', '--once', '--account', 'acme', '--log-level', 'silent']);
    expect(second.code).toBe(0);
    const one = runIds(first.out);
    const two = runIds(second.out);
    expect(Object.keys(one).sort()).toEqual(['acme', 'beta', 'gamma']);

    const table = await visyncCli(path, ['runs']);
    expect(table.code).toBe(0);
    expect(table.err).toEqual([]);
    expect(table.out[0]).toMatch(
      /^RUN ID\s+ACCOUNT\s+KIND\s+STATUS\s+STARTED\s+DURATION\s+WORKSPACES\s+REQUESTS\s+REASON$/,
    );
    const rows = table.out.slice(1);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(
      new RegExp(`^${two.acme}\\s+acme\\s+sync\\s+succeeded\\s+\\S+ \\S+\\s+\\S+\\s+2/2\\s+\\d+\\s*$`),
    );
    const betaRow = rows.find((r) => r.startsWith(one.beta!));
    expect(betaRow).toMatch(/\s+beta\s+sync\s+failed\s+.*0\/0\s+1\s+GET \/api\/v1\/me -> 403: /);
    expect(rows.find((r) => r.startsWith(one.gamma!))).toMatch(
      /\s+gamma\s+sync\s+failed\s+.*0\/1\s+\d+\s+1 workspace failed, nope: GET \/api\/v1\/brands\/nope -> 404: .{10,}\.\.\.$/,
    );
    expect(rows.some((r) => r.startsWith(one.acme!))).toBe(true);

    const json = await visyncCli(path, ['runs', '--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out.join('\n')) as RunRow[];
    expect(parsed.map((r) => r.run_id)[0]).toBe(two.acme);
    expect(parsed.map((r) => r.run_id).sort()).toEqual([one.acme, one.beta, one.gamma, two.acme].sort());
    const started = parsed.map((r) => r.started_at);
    expect([...started].sort().reverse()).toEqual(started);
    const beta = parsed.find((r) => r.account === 'beta')!;
    expect(beta).toMatchObject({
      status: 'failed',
      kind: 'sync',
      workspaces: { succeeded: 0, total: 0 },
      requests: 1,
    });
    expect(beta.reason).toMatch(/403.*API access|API access.*403|plan has no API access/);
    expect(parsed[0]).toMatchObject({ workspaces: { succeeded: 2, total: 2 } });
    expect(parsed[0]!.duration_seconds).toBeGreaterThanOrEqual(0);

    const limited = await visyncCli(path, ['runs', '--limit', '1', '--json']);
    expect(limited.code).toBe(0);
    expect((JSON.parse(limited.out.join('\n')) as RunRow[]).map((r) => r.run_id)).toEqual([two.acme]);

    const onlyBeta = await visyncCli(path, ['runs', '--account', 'beta', '--json']);
    expect(onlyBeta.code).toBe(0);
    expect((JSON.parse(onlyBeta.out.join('\n')) as RunRow[]).map((r) => r.run_id)).toEqual([one.beta]);
  });

  it('no runs yet: says so and exits 0, also with Redis configured and down; a bad --limit is a usage error', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = tempDir();
    const { yaml, env } = configYaml(s, dir, {
      top: { redis: { url: `redis://127.0.0.1:${await freePort()}` } },
    });
    Object.assign(process.env, env);
    const path = writeConfig(dir, yaml);
    const c = await visyncCli(path, ['runs']);
    expect(c.code).toBe(0);
    expect(c.out).toEqual([`no runs yet: no manifest under ${dir}/runs/`]);
    const bad = await visyncCli(path, ['runs', '--limit', '0']);
    expect(bad.code).toBe(64);
    expect(bad.err.join('\n')).toMatch(/--limit.*whole number/);
  });
});
