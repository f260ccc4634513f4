// Scripted data changes (the `changes` option, docs/simulator.md): what the simulator answers
// differs from its generated data in a known way, so a test (or a demo) can sync one night
// without them and the next with them, and know exactly which brand events must follow.
// Applied to the generated bodies before faults touch them; pure apart from structured cloning.
import type { RawEndpoint } from '../api/endpoints.js';
import type { BuyerIntent, Recommendation, Reputation, WorkspaceRecord } from './data.js';

const DATA_CHANGE_KINDS = [
  'engine-drop',
  'false-claim',
  'competitor-win',
  'close-recommendation',
  'unlist-recommendation',
  'relist-recommendation',
  'duplicate-recommendation',
  'remove-workspace',
] as const;
export type DataChangeKind = (typeof DATA_CHANGE_KINDS)[number];

export interface DataChange {
  kind: DataChangeKind;
  account: string;
  /** Index of the workspace in the account (0 = first), or its id. */
  workspace: number | string;
  /** engine-drop: the engine (default: the workspace's first in model_scores); false-claim: the engine claiming. */
  engine?: string;
  /** engine-drop: points taken off the engine's latest score (default 15). */
  points?: number;
  /** false-claim: the claim text. */
  claim?: string;
  /** competitor-win: the competitor's name. */
  competitor?: string;
  /**
   * close-, unlist-, relist-, duplicate-recommendation: the recommendation's id (default: the first
   * open one by id). relist: listed again, open, under `<id>r` (the API re-issuing it); duplicate:
   * also listed, open, under `<id>d` with the same title (two ids, one title).
   */
  recommendation?: string;
}

/** Validates one change of a --changes file or of the options; `where` names it in the error. */
export function validateDataChange(raw: unknown, where: string): DataChange {
  const c = (raw ?? {}) as Partial<DataChange>;
  if (!DATA_CHANGE_KINDS.includes(c.kind as DataChangeKind))
    throw new Error(`${where}: kind must be one of ${DATA_CHANGE_KINDS.join(', ')}`);
  if (typeof c.account !== 'string') throw new Error(`${where}: account must be an account name`);
  if (typeof c.workspace !== 'number' && typeof c.workspace !== 'string')
    throw new Error(`${where}: workspace must be an index (0 = first) or a workspace id`);
  if (c.points !== undefined && !(typeof c.points === 'number' && c.points > 0))
    throw new Error(`${where}: points must be a positive number`);
  return c as DataChange;
}

export class DataChanges {
  constructor(private readonly changes: readonly DataChange[]) {}

  #for(account: string, ids: readonly string[], workspaceId: string, kind: DataChangeKind): DataChange[] {
    return this.changes.filter(
      (c) =>
        c.kind === kind &&
        c.account === account &&
        (c.workspace === workspaceId ||
          (typeof c.workspace === 'number' && ids[c.workspace] === workspaceId)),
    );
  }

  /** The workspaces GET /brands lists: those not removed. */
  listed(account: string, ids: readonly string[]): string[] {
    return ids.filter((id) => this.#for(account, ids, id, 'remove-workspace').length === 0);
  }

  /** The body of a workspace's reply (or of one workspace record of the list), changed. */
  apply(
    account: string,
    ids: readonly string[],
    workspaceId: string,
    endpoint: RawEndpoint,
    body: unknown,
  ): unknown {
    const of = (kind: DataChangeKind) => this.#for(account, ids, workspaceId, kind);
    if (endpoint === 'brands' || endpoint === 'brand') {
      const drops = of('engine-drop');
      if (!drops.length) return body;
      const w = structuredClone(body) as WorkspaceRecord;
      for (const d of drops) {
        const engine = d.engine ?? Object.keys(w.latest_score.model_scores).sort()[0];
        const score = engine === undefined ? undefined : w.latest_score.model_scores[engine];
        if (engine !== undefined && score !== undefined)
          w.latest_score.model_scores[engine] = Math.max(0, Math.round((score - (d.points ?? 15)) * 10) / 10);
      }
      return w;
    }
    if (endpoint === 'reputation') {
      const claims = of('false-claim');
      if (!claims.length) return body;
      const r = structuredClone(body) as Reputation;
      for (const [i, c] of claims.entries()) {
        const engine = c.engine ?? r.engines[0]?.engine ?? 'chatgpt';
        const entry = r.engines.find((e) => e.engine === engine) ?? { engine, claims: [] };
        if (!r.engines.includes(entry)) r.engines.push(entry);
        const id = `scripted-claim-${i + 1}`;
        entry.claims.push({
          id,
          claim: c.claim ?? 'The brand was discontinued',
          sentiment: 'negative',
          suspected_false: true,
        });
        r.flags.push({ claim_id: id, engine, reason: 'contradicts the brand website' });
      }
      return r;
    }
    if (endpoint === 'buyer-intent') {
      const wins = of('competitor-win');
      if (!wins.length) return body;
      const b = structuredClone(body) as BuyerIntent;
      for (const [i, w] of wins.entries()) {
        const name = w.competitor ?? 'Scripted Rival';
        b.losses.push({
          prompt_id: `scripted-prompt-${i + 1}`,
          prompt: `best alternative to ${name}`,
          engine: w.engine ?? 'chatgpt',
          winner: { name, domain: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example` },
        });
      }
      return b;
    }
    const recs = ['close', 'unlist', 'relist', 'duplicate'].flatMap((k) =>
      of(`${k}-recommendation` as DataChangeKind),
    );
    if (endpoint === 'recommendations' && recs.length) {
      const list = structuredClone(body) as { data: Recommendation[]; count: number };
      const target = (c: DataChange) =>
        c.recommendation === undefined
          ? list.data.filter((r) => r.status === 'open').sort((a, b) => a.id.localeCompare(b.id))[0]
          : list.data.find((r) => r.id === c.recommendation);
      for (const c of of('duplicate-recommendation')) {
        const open = target(c);
        if (open) list.data.push({ ...open, id: `${open.id}d` });
      }
      for (const c of of('close-recommendation')) {
        const open = target(c);
        if (open) open.status = 'done';
      }
      // Unlisted: gone from the list without being done or dismissed (not "closed").
      for (const c of of('unlist-recommendation')) {
        const open = target(c);
        if (open) list.data = list.data.filter((r) => r !== open);
      }
      // Relisted: gone under its id, listed again, open, under another (same title).
      for (const c of of('relist-recommendation')) {
        const open = target(c);
        if (open) list.data = list.data.map((r) => (r === open ? { ...r, id: `${r.id}r` } : r));
      }
      list.count = list.data.length;
      return list;
    }
    return body;
  }
}
