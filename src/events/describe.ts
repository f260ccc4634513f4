// One line per brand event, for `visync events` and the alert; `esc` escapes each string that
// came from the API (Slack's escaping in the alert, none on a terminal).
import type { BrandEvent } from './read.js';

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

/** The record's own words: a claim, a topic, a title, the prompts a competitor wins. */
function detail(e: BrandEvent): string | undefined {
  const r = { ...parsed(e.before), ...parsed(e.after) };
  const text = r.claim ?? r.topic ?? r.title;
  if (typeof text === 'string') return `"${text}"`;
  if (Array.isArray(r.prompts) && r.prompts.length) return `on ${r.prompts.map(String).join(', ')}`;
  return undefined;
}

export function describeEvent(e: BrandEvent, esc: (s: string) => string = (s) => s): string {
  const head = `[${e.severity}] ${LABELS[e.event_type] ?? e.event_type}: ${esc(e.key)}`;
  if (e.event_type === 'payload_changed') {
    const part = (word: string, xs: string[]) => (xs.length ? [`${word} ${xs.map(esc).join(', ')}`] : []);
    return [head, ...part('added', list(e.after)), ...part('removed', list(e.before))].join('; ');
  }
  if (e.before !== null && e.after !== null) {
    const sign = (e.magnitude ?? 0) > 0 ? '+' : '';
    return `${head} ${esc(e.before)} -> ${esc(e.after)} (${sign}${e.magnitude})`;
  }
  const d = detail(e);
  return d === undefined ? head : `${head} ${esc(d)}`;
}
