// The whole book's page (docs/reports.md, "The whole book"): ./book.ts's rows rendered by the
// accounts' overview page (./page.ts) in the agency's look and locale, written to
// `reports/agency/period=P/overview.html` (and overview.pdf when asked), above the accounts'
// folders, so its relative links open each client's report wherever the folder is copied or served.
import type { ReportFile, ReportTarget } from '../output.js';
import type { ReportStyle } from '../style.js';
import type { Book } from './book.js';
import { portfolioTrend } from './rows.js';

export interface BookOptions {
  target: ReportTarget;
  book: Book;
  /** The agency's look: the top-level `reports` settings, the agency's name and locale. */
  style: ReportStyle;
  /** Prints the page to PDF; unset: no overview.pdf. */
  print?: ((html: string) => Promise<Uint8Array>) | undefined;
}

/** Writes the book; returns where its overview.html went. */
export async function writeBook(o: BookOptions): Promise<string> {
  // Vega loads with the page only when there is a page to render (test/startup-imports.test.ts).
  const { renderOverview } = await import('./page.js');
  const page = await renderOverview({
    period: o.book.period,
    toDate: o.book.toDate,
    previous: o.book.previous,
    rows: o.book.rows,
    trend: portfolioTrend(o.book.reports),
    style: o.style,
    book: { missing: o.book.missing },
  });
  const files: ReportFile[] = [{ format: 'html', body: page }];
  if (o.print) files.push({ format: 'pdf', body: await o.print(page) });
  return o.target.writeBook(o.book.period.label, files);
}
