// The whole book of `visync report` (docs/reports.md, "The whole book"): every account's overview
// rows in the agency's look and locale, written once every account's reports are made. Its own
// module so src/cli/report.ts stays the command's flow.
import type { Config } from '../config/schema.js';
import type { ReportFormat } from '../report/output.js';
import type { AccountOutcome } from '../report/overview/book.js';
import type { PdfSession } from '../report/render/pdf.js';
import type { ReportSettings } from '../report/settings.js';
import type { ObjectStores } from '../sinks/create-store.js';
import type { CommandIo } from './program-state.js';

/** What the whole book reads of the command's tally, and where it says where the book went. */
interface BookTally {
  code: number;
  outcomes: AccountOutcome[];
  book?: string;
}

export interface BookSources {
  config: Config;
  flags: { out?: string | undefined; json?: boolean | undefined };
  io: CommandIo;
  tally: BookTally;
  stores: ObjectStores;
  accounts: readonly string[];
  style: typeof import('../report/style.js');
  output: typeof import('../report/output.js');
  pdf: PdfSession | undefined;
  typed: ReportFormat[] | undefined;
  /** The whole book's settings (src/report/settings.ts agencyBookSettings). */
  agency: ReportSettings;
}

/**
 * The whole book of every account's clients (docs/reports.md, "The whole book"), in the agency's
 * look and locale, beside the accounts' folders: under --out, or in the one object store they
 * share (its links are relative: accounts in several stores get a line saying to use --out).
 */
export async function wholeBook(b: BookSources): Promise<void> {
  const { wholeBook: bookOf } = await import('../report/overview/book.js');
  const book = bookOf(b.tally.outcomes);
  if (!book) return;
  let target = b.flags.out ? b.output.dirTarget(b.flags.out) : undefined;
  if (!target) {
    const shared = await b.stores.grouped(b.config, b.accounts);
    if (shared.length !== 1 || !shared[0]) {
      b.io.err(
        `visync: the whole-book overview (reports.agency) is not written: the accounts write to ${shared.length} object stores and its links are relative; run \`visync report --out DIR\` to have it in one folder`,
      );
      return;
    }
    target = b.output.storeTarget(shared[0].store);
  }
  const s = b.agency;
  const { writeBook } = await import('../report/overview/book-write.js');
  try {
    b.tally.book = await writeBook({
      target,
      book,
      style: b.style.styleOf(s),
      print: b.style.overviewPrinter((b.typed ?? s.formats).includes('pdf') ? b.pdf : undefined, s),
    });
  } catch (err) {
    const { errorMessage } = await import('../util/errors.js');
    b.io.err(`visync: the whole-book overview (reports.agency): ${errorMessage(err)}`);
    b.tally.code = Math.max(b.tally.code, 1);
    return;
  }
  if (!b.flags.json) b.io.out(`agency overview ${book.period.label}: ${b.tally.book}`);
}
