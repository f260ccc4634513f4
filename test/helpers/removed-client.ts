// For tests of a client removed from the account (issue #39, case 5): acme synced on three nights
// (30 days of history each), its second workspace in the runs of 20 and 31 October and gone from
// the run of 1 November. Synced once per test file; each test gets its own copy of the store.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { generatedWorkspaceId } from '../../src/simulator/data.js';
import * as h from './harness.js';
import { SPEC, twoNights } from './report-nights.js';

export const REMOVAL_NIGHTS = ['2026-10-20', '2026-10-31', '2026-11-01'] as const;

export interface RemovedClientCopy {
  /** The copy's folder: the synced store and its visync.yaml (sinks.fs.dir pointing here). */
  dir: string;
  config: string;
  /** The workspace the account still has, and the one it no longer lists on 1 November. */
  kept: string;
  removed: string;
}

/** The three nights synced once for the file (call at its top level); `copy()` per test. */
export function removedClientOnce(): {
  copy: (o?: { reports?: Record<string, unknown> }) => RemovedClientCopy;
} {
  let synced = '';
  let kept = '';
  let close = async () => {};
  beforeAll(async () => {
    const held = await h.outlivingTests(async () => {
      const dir = h.tempDir();
      const { last } = await twoNights(dir, REMOVAL_NIGHTS, [], [2, 2, 1]);
      return { dir, ids: (last.accounts[0] as { workspaceIds: string[] }).workspaceIds };
    });
    close = held.close;
    synced = held.value.dir;
    expect(held.value.ids).toHaveLength(1);
    kept = held.value.ids[0] as string;
  });
  afterAll(() => close());
  return {
    copy: (o = {}) => {
      if (!synced) throw new Error('removedClientOnce: call it at the top level of a test file');
      const dir = h.tempDir();
      cpSync(synced, dir, { recursive: true });
      const config = join(dir, 'visync.yaml');
      const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown> & {
        accounts: Record<string, unknown>[];
      };
      doc.sinks = { fs: { dir } };
      if (o.reports) (doc.accounts[0] as Record<string, unknown>).reports = o.reports;
      writeFileSync(config, stringify(doc));
      // The simulator's ids follow seed, account and index: the second of the first nights.
      const removed = generatedWorkspaceId(SPEC.seed, 'acme', 1);
      return { dir, config, kept, removed };
    },
  };
}
