// The line under a snapshot section's heading saying which state it shows (docs/reports.md "Which
// data a report reads", ../model/snapshots-shown.ts): "As of 1 November 2026.", the newest before the
// period, the first known after it, or that none is known, so an empty section never reads as none.
import type { ReportModel } from '../model/report-shape.js';
import type { SnapshotSection } from '../model/snapshots-shown.js';
import type { Formatters } from './format.js';
import { type Html, html } from './html-parts.js';

export function snapshotNote(f: Formatters, r: ReportModel, section: SnapshotSection): Html {
  // A report.json of an earlier model version read back has no `snapshots`: no line.
  const shown = (r as Partial<Pick<ReportModel, 'snapshots'>>).snapshots?.[section];
  if (!shown) return html``;
  const words =
    shown.date === null
      ? f.t('page:snapshot.none')
      : f.t(`page:snapshot.${shown.kind}`, { day: f.day(shown.date) });
  return html`<p class="muted">${words}</p>\n`;
}
