// The weekly brand-watch digest (docs/operations.md, "Brand watch"): an account's workspaces ranked
// by how much changed for them in one ISO week, under the account's watch rules. Pure: the webhook
// message (src/delivery/digest/send.ts) and `visync events --digest` (src/cli/events.ts) print the
// same ranking from it, the first with every API string escaped for Slack.
import type { Severity } from '../../catalogue/brand-events.js';
import type { AccountWatchConfig, WatchConfig } from '../../config/schema.js';
import { counted, describeEvent, eventLabel, ID_NAMING, type Naming } from '../../events/describe.js';
import { type BrandEvent, bySeverityOf } from '../../events/read.js';
import { applyRules, DEFAULT_DIGEST_TOP, quietLine } from '../../events/rules.js';
import type { Period } from '../../history/period.js';
import { type AlertPayload, slackEscape } from '../webhooks/payloads.js';

/** A workspace's change score is the sum of its events' weights. */
export const SEVERITY_WEIGHT: Record<Severity, number> = { high: 3, medium: 2, low: 1 };
/** Events shown per listed workspace: its most severe, then largest. */
export const MOVES_SHOWN = 3;

export interface RankedWorkspace {
  brand_id: string;
  score: number;
  events: number;
  /** Events per type, the most frequent first. */
  counts: Record<string, number>;
  /** Its largest move, absolute (score points, share-of-voice points; 1 for the other types). */
  largest: number;
  /** Its biggest moves, the most severe first. */
  moves: BrandEvent[];
}

export interface Digest {
  account: string;
  week: Pick<Period, 'label' | 'from' | 'to'>;
  /** The top workspaces, highest score first. */
  workspaces: RankedWorkspace[];
  /** The workspaces ranked below the top, together. */
  rest: { workspaces: number; events: number; score: number };
  /** Quiet types: counted, never ranked. */
  quiet: Record<string, number>;
  /** Events ranked (quiet ones excluded). */
  events: number;
}

const byCount = ([ta, na]: [string, number], [tb, nb]: [string, number]) => nb - na || (ta < tb ? -1 : 1);

function ranked(brandId: string, events: BrandEvent[]): RankedWorkspace {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.event_type, (counts.get(e.event_type) ?? 0) + 1);
  const sorted = [...events].sort(bySeverityOf);
  return {
    brand_id: brandId,
    score: events.reduce((n, e) => n + SEVERITY_WEIGHT[e.severity], 0),
    events: events.length,
    counts: Object.fromEntries([...counts].sort(byCount)),
    largest: Math.max(...events.map((e) => Math.abs(e.magnitude ?? 0))),
    moves: sorted.slice(0, MOVES_SHOWN),
  };
}

/** Higher score first; a tie goes to the larger move, then to more events, then by workspace id. */
function byChange(a: RankedWorkspace, b: RankedWorkspace): number {
  return (
    b.score - a.score ||
    b.largest - a.largest ||
    b.events - a.events ||
    (a.brand_id < b.brand_id ? -1 : a.brand_id > b.brand_id ? 1 : 0)
  );
}

/** The week's ranking from the events whose run is dated in `week`, under the account's watch rules. */
export function weeklyDigest(
  top: WatchConfig | undefined,
  account: { name: string; watch?: AccountWatchConfig | undefined },
  week: Pick<Period, 'label' | 'from' | 'to'>,
  events: readonly BrandEvent[],
  size = DEFAULT_DIGEST_TOP,
): Digest {
  const inWeek = events.filter((e) => e.snapshot_date >= week.from && e.snapshot_date <= week.to);
  const { listed, quiet } = applyRules(top, account.watch, inWeek);
  const all = [...listed].map(([id, evs]) => ranked(id, evs)).sort(byChange);
  const rest = all.slice(size);
  return {
    account: account.name,
    week: { label: week.label, from: week.from, to: week.to },
    workspaces: all.slice(0, size),
    rest: {
      workspaces: rest.length,
      events: rest.reduce((n, w) => n + w.events, 0),
      score: rest.reduce((n, w) => n + w.score, 0),
    },
    quiet: Object.fromEntries([...quiet].sort(byCount)),
    events: all.reduce((n, w) => n + w.events, 0),
  };
}

/** Whether the week had anything watched at all (ranked or quiet). */
export function digestIsEmpty(d: Digest): boolean {
  return d.events === 0 && Object.keys(d.quiet).length === 0;
}

const countsText = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([t, n]) => `${eventLabel(t)} ${n}`)
    .join(', ');

/** The digest as lines: a head, per listed workspace a title line and its moves, the rest, the quiet. */
export function digestLines(
  d: Digest,
  esc: (s: string) => string = (s) => s,
  naming: Naming = ID_NAMING,
): string[] {
  const workspaces = d.workspaces.length + d.rest.workspaces;
  const lines = [
    `visync weekly digest: account ${esc(d.account)}, week ${d.week.label} (${d.week.from} to ${d.week.to}): ` +
      (d.events
        ? `${counted(d.events, 'change')} for ${counted(workspaces, 'client')}`
        : 'no ranked changes'),
  ];
  d.workspaces.forEach((w, i) => {
    lines.push(
      `${i + 1}. ${workspaceTitle(w, esc, naming)}`,
      ...w.moves.map((e) => `   • ${describeEvent(e, esc, naming)}`),
    );
  });
  if (d.rest.workspaces)
    lines.push(
      `... and ${counted(d.rest.workspaces, 'more client')}: ${counted(d.rest.events, 'change')} (score ${d.rest.score})`,
    );
  if (Object.keys(d.quiet).length) lines.push(quietLine(new Map(Object.entries(d.quiet))));
  return lines;
}

function workspaceTitle(w: RankedWorkspace, esc: (s: string) => string, naming: Naming): string {
  return `${esc(naming.workspace(w.brand_id))}: score ${w.score}, ${counted(w.events, 'change')} (${countsText(w.counts)})`;
}

/** The webhook message: Slack-escaped text, one field per listed workspace, the ranking for programs. */
export function digestPayload(d: Digest, naming: Naming = ID_NAMING): AlertPayload {
  const high = d.workspaces.some((w) => w.moves[0]?.severity === 'high');
  return {
    text: digestLines(d, slackEscape, naming).join('\n'),
    attachments: [
      {
        color: high ? 'danger' : d.events ? 'warning' : 'good',
        fields: d.workspaces.map((w) => ({
          title: workspaceTitle(w, slackEscape, naming),
          value: w.moves.map((e) => `• ${describeEvent(e, slackEscape, naming)}`).join('\n'),
          short: false,
        })),
      },
    ],
    visync: {
      event: 'events',
      account: d.account,
      period: d.week.label,
      failed_workspaces: [],
      failed_tables: [],
      digest: d.workspaces.map((w) => ({
        brand_id: w.brand_id,
        brand_name: naming.workspace(w.brand_id),
        score: w.score,
        events: w.events,
        counts: w.counts,
      })),
    },
  };
}
