// Watch rules (docs/operations.md, "Brand watch"): which of a workspace's brand events its
// account's alert lists, counts as quiet, or leaves out. Top-level `watch`, then the account's,
// then its per-workspace entry, each key overriding the one before.
import { EVENT_TYPES, type EventType } from '../catalogue/brand-events.js';
import type { AccountWatchConfig, WatchConfig } from '../config/schema.js';

export interface WatchRules {
  types: ReadonlySet<EventType>;
  quiet: ReadonlySet<EventType>;
  scorePoints: number;
  sovPoints: number;
}

export const DEFAULT_SCORE_POINTS = 5;
export const DEFAULT_SOV_POINTS = 2;

type Settings = Omit<NonNullable<WatchConfig>, 'workspaces'>;

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
