// The recommendations a client page lists: one line per title, with its latest state. The API can
// list one recommendation under two ids (re-issued, or twice); a client knows it by its title, so
// the page shows it once (docs/reports.md, "Sections"). report.json keeps every id. Pure.
import type { Row } from '../../catalogue/types.js';
import type { Recommendation } from './report-shape.js';

const titleKey = (r: Pick<Recommendation, 'id' | 'title'>) =>
  r.title === null ? `id\u0000${r.id}` : `title\u0000${r.title}`;

/** How many recommendations a snapshot lists open, one per title; null when it was not synced. */
export function openTitles(rows: readonly Row[] | undefined): number | null {
  if (rows === undefined) return null;
  const keys = rows
    .filter((r) => r.status === 'open')
    .map((r) =>
      titleKey({ id: String(r.recommendation_id), title: typeof r.title === 'string' ? r.title : null }),
    );
  return new Set(keys).size;
}

/**
 * `open` one per title (the first in their order: by priority); `closed` (done or dismissed in the
 * period) without the titles still open, one per title: the one updated last.
 */
export function onePerTitle(
  open: readonly Recommendation[],
  closed: readonly Recommendation[],
): { open: Recommendation[]; closed: Recommendation[] } {
  const openTitles = new Set<string>();
  const shownOpen = open.filter((r) => {
    const k = titleKey(r);
    if (openTitles.has(k)) return false;
    openTitles.add(k);
    return true;
  });
  const latest = new Map<string, Recommendation>();
  for (const r of closed) {
    const k = titleKey(r);
    if (openTitles.has(k)) continue;
    const seen = latest.get(k);
    if (!seen || (r.updated_at ?? '') > (seen.updated_at ?? '')) latest.set(k, r);
  }
  const kept = new Set(latest.values());
  return { open: shownOpen, closed: closed.filter((r) => kept.has(r)) };
}
