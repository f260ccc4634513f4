// GET /me -> accounts. The spec names only the groups plan, limits and usage; the rest is assumed.

import { f, inspect, obj, type Probe, readObject } from './drift-spec.js';
import { baseColumns } from './rows.js';
import type { LandedRaw, NormaliseResult } from './types.js';

const ME = obj({
  account: obj({ id: f.string, name: f.string }),
  plan: obj({ name: f.string, api_access: f.boolean }),
  limits: obj({
    requests_per_minute: f.integer,
    window_seconds: f.number,
    visibility_days_max: f.integer,
    buyer_intent_days: obj({ min: f.integer, max: f.integer }),
  }),
  usage: obj({ requests_in_window: f.integer, workspaces: f.integer }),
});

export function normaliseMe(rec: LandedRaw): NormaliseResult {
  const probe: Probe = { endpoint: 'me', origin: rec.account, drift: [] };
  const rows = readObject(rec.body, probe, ME.keys).map(({ value, loc }) => {
    const v = inspect(ME, value, probe, loc);
    return {
      table: 'accounts',
      row: {
        ...baseColumns(rec),
        snapshot_date: rec.snapshotDate,
        account_id: v?.account?.id ?? null,
        account_name: v?.account?.name ?? null,
        plan_name: v?.plan?.name ?? null,
        api_access: v?.plan?.api_access ?? null,
        requests_per_minute: v?.limits?.requests_per_minute ?? null,
        window_seconds: v?.limits?.window_seconds ?? null,
        visibility_days_max: v?.limits?.visibility_days_max ?? null,
        buyer_intent_days_min: v?.limits?.buyer_intent_days?.min ?? null,
        buyer_intent_days_max: v?.limits?.buyer_intent_days?.max ?? null,
        requests_in_window: v?.usage?.requests_in_window ?? null,
        workspace_count: v?.usage?.workspaces ?? null,
        payload: value,
      },
    };
  });
  return { rows, drift: probe.drift };
}
