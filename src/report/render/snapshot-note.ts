// The line under a snapshot section's heading saying which state it shows (docs/reports.md "Which
// data a report reads", ../model/snapshots-shown.ts): "As of 1 November 2026.", the newest before the
// period, the first known after it, or that none is known, so an empty section never reads as none;
// a section with no state known holds that line only.
import type { ReportModel } from '../model/report-shape.js';
import type { SnapshotSection } from '../model/snapshots-shown.js';
import type { Formatters } from './format.js';
import { type Html, html } from './html-parts.js';

// A report.json of an earlier model version read back has no `snapshots`: no line.
const shownOf = (r: ReportModel, section: SnapshotSection) =>
  (r as Partial<Pick<ReportModel, 'snapshots'>>).snapshots?.[section];

export function snapshotNote(f: Formatters, r: ReportModel, section: SnapshotSection): Html {
  const shown = shownOf(r, section);
  if (!shown) return html``;
  const words =
    shown.date === null
      ? f.t('page:snapshot.none')
      : f.t(`page:snapshot.${shown.kind}`, { day: f.day(shown.date) });
  return html`<p class="muted">${words}</p>\n`;
}

/**
 * A section whose whole content is a snapshot no run holds for the period (buyer intent,
 * recommendations, reputation): its heading and that line only, no empty table reading "none".
 * Undefined when a state is known.
 */
export function unknownState(
  f: Formatters,
  r: ReportModel,
  section: SnapshotSection,
  heading: string,
): Html | undefined {
  if (shownOf(r, section)?.kind !== 'none') return undefined;
  return html`<section><h2>${heading}</h2>
${snapshotNote(f, r, section)}</section>`;
}
