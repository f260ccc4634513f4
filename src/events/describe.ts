// One line per brand event, for `visync events`, the alert and the digest; `esc` escapes each string
// that came from the API (Slack's escaping in the alert, none on a terminal). A person reads it:
// records by their words, engines and workspaces by the names `Naming` gives (the callers know the
// display names: src/delivery/digest/display-names.ts), never by an API id.
import { oldLabel } from './meanings.js';
import type { BrandEvent } from './read.js';

/** Display names for ids: an engine's (of a workspace, whose settings may rename it), a workspace's. */
export interface Naming {
  engine: (id: string, brandId: string) => string;
  workspace: (id: string) => string;
}

/** `1 change`, `2 changes`: a count and its noun, English plural by `s`. */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Ids as they are: for a caller that has no names. */
export const ID_NAMING: Naming = { engine: (id) => id, workspace: (id) => id };

const LABELS: Record<BrandEvent['event_type'], string> = {
  score_drop: 'overall score dropped',
  score_rise: 'overall score rose',
  engine_score_drop: 'engine score dropped',
  engine_score_rise: 'engine score rose',
  share_of_voice_drop: 'share of voice dropped',
  false_claim_new: 'new suspected-false claim',
  false_claim_resolved: 'suspected-false claim resolved',
  conflict_new: 'new engine conflict',
  conflict_resolved: 'engine conflict resolved',
  competitor_new: 'new competitor winning money prompts',
  recommendation_opened: 'recommendation opened',
  recommendation_closed: 'recommendation closed (done or dismissed)',
  recommendation_unlisted: 'recommendation no longer listed (not done or dismissed)',
  workspace_added: 'workspace added',
  workspace_removed: 'workspace removed',
  payload_changed: 'fields sent changed',
};

/** An event type in words (`score_drop` -> "overall score dropped"). */
export const eventLabel = (type: string): string => LABELS[type as BrandEvent['event_type']] ?? type;

const list = (text: string | null): string[] => {
  try {
    const v = JSON.parse(text ?? '[]') as unknown;
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
};

function parsed(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The record's fields before and after, merged (the after side wins). */
const fieldsOf = (e: BrandEvent) => ({ ...parsed(e.before), ...parsed(e.after) });

/** The record's own words: a claim, a topic, a title, the prompts a competitor wins. */
function detail(e: BrandEvent): string | undefined {
  const r = fieldsOf(e);
  const text = r.claim ?? r.topic ?? r.title;
  if (typeof text === 'string') return `"${text}"`;
  if (Array.isArray(r.prompts) && r.prompts.length) return `on ${r.prompts.map(String).join(', ')}`;
  return undefined;
}

/** What the event is about, as a person names it; undefined when the label says it all. */
function subject(e: BrandEvent, esc: (s: string) => string, n: Naming): string | undefined {
  switch (e.event_type) {
    case 'score_drop':
    case 'score_rise':
    case 'share_of_voice_drop':
      return undefined;
    case 'engine_score_drop':
    case 'engine_score_rise':
      return esc(n.engine(e.key, e.brand_id));
    case 'false_claim_new':
    case 'false_claim_resolved': {
      const engine = fieldsOf(e).engine;
      return typeof engine === 'string' ? esc(n.engine(engine, e.brand_id)) : undefined;
    }
    case 'workspace_added':
    case 'workspace_removed':
      return esc(n.workspace(e.key));
    case 'competitor_new':
    case 'payload_changed':
      return esc(e.key);
    default:
      // A recommendation or a conflict: its words follow (its id is for programs).
      return undefined;
  }
}

/** The event in words: `[severity] label: subject detail`; `esc` escapes what came from the API. */
export function describeEvent(
  e: BrandEvent,
  esc: (s: string) => string = (s) => s,
  naming: Naming = ID_NAMING,
): string {
  const label = oldLabel(e.event_type, e.detected_by) ?? LABELS[e.event_type] ?? e.event_type;
  const what = subject(e, esc, naming);
  const head = `[${e.severity}] ${label}${what === undefined ? '' : `: ${what}`}`;
  if (e.event_type === 'payload_changed') {
    const part = (word: string, xs: string[]) => (xs.length ? [`${word} ${xs.map(esc).join(', ')}`] : []);
    return [head, ...part('added', list(e.after)), ...part('removed', list(e.before))].join('; ');
  }
  if (e.before !== null && e.after !== null) {
    const sign = (e.magnitude ?? 0) > 0 ? '+' : '';
    return `${head} ${esc(e.before)} -> ${esc(e.after)} (${sign}${e.magnitude})`;
  }
  if (e.event_type === 'workspace_added' || e.event_type === 'workspace_removed') return head;
  const d = detail(e);
  const sep = what === undefined ? ': ' : ' ';
  return d === undefined
    ? `${head}${what === undefined ? ': (no text in the data)' : ''}`
    : `${head}${sep}${esc(d)}`;
}
