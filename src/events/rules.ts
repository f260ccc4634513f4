// Watch rules (docs/operations.md, "Brand watch"): which of a workspace's brand events its
// account's alert lists, counts as quiet, or leaves out. Top-level `watch`, then the account's,
// then its per-workspace entry, each key overriding the one before.
import { EVENT_TYPES, type EventType } from '../catalogue/brand-events.js';
import type { AccountWatchConfig, DigestConfig, WatchConfig } from '../config/schema.js';
import { eventLabel } from './describe.js';
import type { BrandEvent } from './read.js';

export interface WatchRules {
  types: ReadonlySet<EventType>;
  quiet: ReadonlySet<EventType>;
  scorePoints: number;
  sovPoints: number;
}

export const DEFAULT_SCORE_POINTS = 5;
export const DEFAULT_SOV_POINTS = 2;
/** Workspaces a weekly digest lists one by one; the rest share a line. */
export const DEFAULT_DIGEST_TOP = 10;

/** The account's weekly digest (its own `digest`, else the top level's; `false` turns it off), or undefined. */
export function digestSettings(
  top: WatchConfig | undefined,
  account: AccountWatchConfig | undefined,
): Required<DigestConfig> | undefined {
  const d = account?.digest ?? top?.digest;
  return d ? { day: d.day, top: d.top ?? DEFAULT_DIGEST_TOP } : undefined;
}

type Settings = Omit<NonNullable<WatchConfig>, 'workspaces' | 'digest'>;

export function watchRules(
  top: WatchConfig | undefined,
  account: AccountWatchConfig | undefined,
  brandId: string,
): WatchRules {
  const layers: (Settings | undefined)[] = [top, account, account?.workspaces?.[brandId]];
  const pick = <K extends keyof Settings>(k: K): Settings[K] | undefined =>
    layers.reduce<Settings[K] | undefined>((v, l) => l?.[k] ?? v, undefined);
  return {
    types: new Set(pick('types') ?? EVENT_TYPES),
    quiet: new Set(pick('quiet') ?? []),
    scorePoints: pick('scorePoints') ?? DEFAULT_SCORE_POINTS,
    sovPoints: pick('sovPoints') ?? DEFAULT_SOV_POINTS,
  };
}

const SCORE_TYPES: readonly EventType[] = [
  'score_drop',
  'score_rise',
  'engine_score_drop',
  'engine_score_rise',
];

/** Whether the rules alert the event at all (listed or quiet). */
export function watched(r: WatchRules, e: { event_type: EventType; magnitude: number | null }): boolean {
  if (!r.types.has(e.event_type)) return false;
  const size = Math.abs(e.magnitude ?? 0);
  if (SCORE_TYPES.includes(e.event_type)) return size >= r.scorePoints;
  if (e.event_type === 'share_of_voice_drop') return size >= r.sovPoints;
  return true;
}

export interface Watched {
  /** The events listed, per workspace, in the order met. */
  listed: Map<string, BrandEvent[]>;
  /** Quiet types: only counted. */
  quiet: Map<EventType, number>;
}

/** The events under each workspace's rules: listed, counted as quiet, or (not watched) left out. */
export function applyRules(
  top: WatchConfig | undefined,
  account: AccountWatchConfig | undefined,
  events: readonly BrandEvent[],
): Watched {
  const listed = new Map<string, BrandEvent[]>();
  const quiet = new Map<EventType, number>();
  for (const e of events) {
    const rules = watchRules(top, account, e.brand_id);
    if (!watched(rules, e)) continue;
    if (rules.quiet.has(e.event_type)) quiet.set(e.event_type, (quiet.get(e.event_type) ?? 0) + 1);
    else listed.set(e.brand_id, [...(listed.get(e.brand_id) ?? []), e]);
  }
  return { listed, quiet };
}

/** `label n, label n` of the quiet counts (each type in words), for a message's last line. */
export function quietLine(quiet: ReadonlyMap<string, number>): string {
  return `quiet: ${[...quiet].map(([t, n]) => `${eventLabel(t)} ${n}`).join(', ')}`;
}
