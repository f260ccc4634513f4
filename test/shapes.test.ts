// #30 item 4, "nothing served reads as zero, and shape is not guessed once": two real `run --once`
// nights against the simulator with its shape knob (src/simulator/shapes.ts), over HTTP, into the
// fs store. A recognised other shape gives the same events as ours; one not recognised gives a
// `payload_changed` event and no invented ones.
import { describe, expect, it } from 'vitest';
import { readEvents } from '../src/events/read.js';
import type { DataChange } from '../src/simulator/changes.js';
import type { Shape } from '../src/simulator/shapes.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';

const TODAY = '2026-11-10';
const SEED = 7;
const ACCOUNTS = [{ name: 'acme', workspaces: 2 }];
const CLAIM = 'The brand <was> discontinued';
const RIVAL = 'Talnora & Co';

/** Two nights of acme into `dir`, each in its own shape, the second with `changes`; the workspace ids. */
async function twoShapedNights(dir: string, shapes: [Shape, Shape], changes: DataChange[] = []) {
  const first = await h.sim({ seed: SEED, accounts: ACCOUNTS, today: TODAY, shape: shapes[0] });
  const r1 = await h.runOnceCli(first, dir, []);
  expect(r1.code, r1.err.join('\n')).toBe(0);
  const second = await h.sim({ seed: SEED, accounts: ACCOUNTS, today: TODAY, shape: shapes[1], changes });
  const r2 = await h.runOnceCli(second, dir, []);
  expect(r2.code, r2.err.join('\n')).toBe(0);
  return { ids: (first.accounts[0] as { workspaceIds: string[] }).workspaceIds };
}

const summary = (e: { event_type: string; brand_id: string; key: string }) =>
  `${e.event_type} ${e.brand_id} ${e.key}`;

describe('brand watch on the other record shapes', () => {
  it('flat claims and a winner as a plain string give false_claim_new and competitor_new the next night', async () => {
    const dir = h.tempDir();
    const { ids } = await twoShapedNights(
      dir,
      ['alternative', 'alternative'],
      [
        { kind: 'false-claim', account: 'acme', workspace: 0, engine: 'chatgpt', claim: CLAIM },
        { kind: 'competitor-win', account: 'acme', workspace: 1, competitor: RIVAL },
      ],
    );
    const events = await readEvents(new FsObjectStore(dir), 'acme');
    expect(events.map(summary).sort()).toEqual(
      [`false_claim_new ${ids[0]} chatgpt/scripted-claim-1`, `competitor_new ${ids[1]} ${RIVAL}`].sort(),
    );
    const claim = events.find((e) => e.event_type === 'false_claim_new');
    expect(JSON.parse(claim?.after ?? '{}').claim).toBe(CLAIM);
  });

  it('a reputation shape not recognised gives payload_changed naming the endpoint and fields, and no resolved claims', async () => {
    const dir = h.tempDir();
    const { ids } = await twoShapedNights(dir, ['assumed', 'unknown']);
    const events = await readEvents(new FsObjectStore(dir), 'acme');
    // The claims are not gone: they came in a shape not read, so nothing reads as resolved.
    expect(events.map(summary).sort()).toEqual(ids.map((id) => `payload_changed ${id} reputation`).sort());
    const e = events[0];
    // Only where both nights sent the holding object: the body itself here.
    expect(JSON.parse(e?.after ?? '[]')).toEqual(['statements']);
    expect(JSON.parse(e?.before ?? '[]')).toEqual(['engines', 'flags']);
    expect(e?.severity).toBe('medium');
    const text = await h.visyncCli(h.configFile(await h.sim({ accounts: ACCOUNTS }), dir).path, ['events']);
    expect(text.out[0]).toMatch(
      /\[medium\] fields sent changed: reputation; added statements; removed engines, flags$/,
    );
  });
});
