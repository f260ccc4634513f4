// Nights of the simulator synced inline into an fs store, one run per night dated that night (the
// simulator's `today` moved on with it), for scheduled-report tests: what the worker's report job
// finds in the store after those nights.
import { expect } from 'vitest';
import { parseConfig } from '../../src/config/read-config.js';
import type { RunStatus } from '../../src/records/run-state.js';
import { runInline } from '../../src/run/inline/run-inline.js';
import type { FaultRule } from '../../src/simulator/faults.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/types.js';
import { FsObjectStore } from '../../src/sinks/fs-store.js';
import * as h from './harness.js';

/**
 * Syncs `accounts` (default all) on `night` into `dir`: a simulator of that day with the given
 * faults; returns the run's status, the simulator and the config file written for it.
 */
export async function syncNight(
  dir: string,
  spec: Omit<SimulatorOptions, 'today' | 'faults'>,
  night: string,
  o: { faults?: FaultRule[]; accounts?: string[]; config?: h.ConfigOverrides } = {},
): Promise<{ status: RunStatus; sim: Simulator; config: string }> {
  const s = await h.sim({ ...spec, today: night, faults: o.faults ?? [] });
  const file = h.configFile(s, dir, o.config);
  const config = parseConfig(file.yaml, { source: 'test', env: file.env });
  const run = await runInline({
    config,
    store: new FsObjectStore(dir),
    logger: h.memoryLogger('warn').logger,
    runDate: night,
    retry: h.FAST_RETRY,
    ...(o.accounts ? { accounts: o.accounts } : {}),
  });
  return { status: run.status, sim: s, config: file.path };
}

/**
 * Syncs `nights` in order, each one succeeding; the config file written for the last and each
 * account's workspace ids (the whole book's tests: test/report-agency.test.ts,
 * test/report-delivery-book.test.ts).
 */
export async function syncNights(
  dir: string,
  spec: Omit<SimulatorOptions, 'today' | 'faults'>,
  nights: readonly string[],
  o: { accounts?: string[]; config?: h.ConfigOverrides } = {},
): Promise<{ config: string; ids: Record<string, string[]> }> {
  let config = '';
  let ids: Record<string, string[]> = {};
  for (const night of nights) {
    const run = await syncNight(dir, spec, night, o);
    expect(run.status).toBe('succeeded');
    config = run.config;
    ids = Object.fromEntries(
      run.sim.accounts.map((a) => [a.name, [...(a as { workspaceIds: string[] }).workspaceIds]]),
    );
  }
  return { config, ids };
}
