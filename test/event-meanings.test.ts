// Events keep the meaning they had when they were recorded (issue #41, case 3). 0.1.0 recorded a
// recommendation gone from the list as `recommendation_closed`, done, dismissed or merely no longer
// listed; 0.2.0 tells them apart (`recommendation_unlisted`). A run whose events 0.1.0 recorded
// (its manifest names no writer) is made here from a real run, as 0.1.0 would have written it:
// its unlisted recommendation recorded as closed, under the id 0.1.0 derived for that type. Then
// `visync events` prints that row with its old meaning, and `visync replay` of the run keeps its
// rows byte for byte: the same ids and types a warehouse may have loaded.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ndjsonPartBytes } from '../src/curate/ndjson-part.js';
import { eventId } from '../src/events/curate.js';
import { sha256Hex } from '../src/util/hash.js';
import { packageVersion } from '../src/util/writer.js';
import * as h from './helpers/harness.js';

const TODAY = '2026-11-10';
const ACCOUNTS = [{ name: 'acme', workspaces: 2 }];

type Row = Record<string, unknown>;
const rowsOf = (bytes: Buffer): Row[] =>
  gunzipSync(bytes)
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);

/** Two nights; on the second one recommendation is done and another is no longer listed. */
async function nights(dir: string) {
  const first = await h.sim({ seed: 7, accounts: ACCOUNTS, today: TODAY });
  const r1 = await h.runOnceCli(first, dir, []);
  expect(r1.code, r1.err.join('\n')).toBe(0);
  const second = await h.sim({
    seed: 7,
    accounts: ACCOUNTS,
    today: TODAY,
    changes: [
      { kind: 'close-recommendation', account: 'acme', workspace: 0 },
      { kind: 'unlist-recommendation', account: 'acme', workspace: 1 },
    ],
  });
  const config = h.configFile(second, dir).path;
  const r2 = await h.visyncCli(config, ['run', '--once', '--log-level', 'silent']);
  expect(r2.code, r2.err.join('\n')).toBe(0);
  const manifests = h
    .listFiles(dir)
    .filter((k) => k.startsWith('runs/') && k.endsWith('/manifest.json'))
    .map((k) => ({ key: k, m: JSON.parse(h.readText(dir, k)) as Row }))
    .sort((a, b) => String(a.m.started_at).localeCompare(String(b.m.started_at)));
  return { config, run2: manifests[1] as { key: string; m: Row } };
}

/** The second run as 0.1.0 wrote it: no writer in its manifest, unlisted recorded as closed. */
function asWrittenBy010(dir: string, run: { key: string; m: Row }): string {
  const files = run.m.files as { key: string; bytes: number; sha256: string }[];
  const part = files.find((f) => f.key.startsWith('tables/brand_events/')) as { key: string };
  const rows = rowsOf(h.readBytes(dir, part.key)).map((r) =>
    r.event_type === 'recommendation_unlisted'
      ? {
          ...r,
          event_type: 'recommendation_closed',
          event_id: eventId(
            String(r.account),
            String(r.run_id),
            String(r.brand_id),
            'recommendation_closed',
            String(r.key),
          ),
        }
      : r,
  );
  expect(rows.filter((r) => r.event_type === 'recommendation_closed')).toHaveLength(2);
  const bytes = ndjsonPartBytes(`${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  writeFileSync(join(dir, part.key), bytes);
  const { writer: _, ...manifest } = run.m;
  manifest.files = files.map((f) =>
    f.key === part.key ? { ...f, bytes: bytes.length, sha256: sha256Hex(bytes) } : f,
  );
  writeFileSync(join(dir, run.key), JSON.stringify(manifest, null, 2));
  return part.key;
}

describe('events recorded by 0.1.0', () => {
  it('`visync events` prints an old recommendation_closed as what it meant then; replay keeps the rows byte for byte', async () => {
    const dir = h.tempDir();
    const { config, run2 } = await nights(dir);
    asWrittenBy010(dir, run2);
    const parts = () =>
      h
        .listFiles(dir)
        .filter((k) => k.startsWith('tables/brand_events/'))
        .map((k) => `${k} ${h.readBytes(dir, k).toString('base64')}`);
    const before = parts();

    const closedLines = async () => {
      const r = await h.visyncCli(config, ['events', '--type', 'recommendation_closed']);
      expect(r.code, r.err.join('\n')).toBe(0);
      return r.out;
    };
    const lines = await closedLines();
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toContain('recommendation closed or no longer listed');
      expect(line).not.toContain('done or dismissed');
    }
    const json = await h.visyncCli(config, ['events', '--json']);
    const events = JSON.parse(json.out.join('\n')) as Row[];
    expect(new Set(events.map((e) => e.detected_by))).toEqual(new Set(['0.1.0']));

    await replayRun(config, String(run2.m.run_id));
    expect(parts()).toEqual(before);
    expect(await closedLines()).toEqual(lines);
    const again = JSON.parse((await h.visyncCli(config, ['events', '--json'])).out.join('\n')) as Row[];
    expect(again).toEqual(events);
  });

  it('a run this release recorded: the closed and the unlisted recommendation each in their own words, replay keeps ids', async () => {
    const dir = h.tempDir();
    const { config, run2 } = await nights(dir);
    const ids = async () =>
      (JSON.parse((await h.visyncCli(config, ['events', '--json'])).out.join('\n')) as Row[])
        .map((e) => `${e.event_type} ${e.event_id} ${e.detected_by}`)
        .sort();
    const before = await ids();
    expect(before.some((x) => x.startsWith('recommendation_unlisted '))).toBe(true);
    expect(before.every((x) => x.endsWith(` ${packageVersion()}`))).toBe(true);
    const text = (await h.visyncCli(config, ['events'])).out.join('\n');
    expect(text).toContain('recommendation closed (done or dismissed)');
    expect(text).toContain('recommendation no longer listed');
    await replayRun(config, String(run2.m.run_id));
    expect(await ids()).toEqual(before);
  });
});

/** `visync replay --run RUN`, which must end 0. */
async function replayRun(config: string, run: string): Promise<void> {
  const replay = await h.visyncCli(config, ['replay', '--run', run, '--log-level', 'silent']);
  expect(replay.code, replay.err.join('\n')).toBe(0);
}
