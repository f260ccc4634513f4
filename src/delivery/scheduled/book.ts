// The whole book by the scheduled delivery (docs/reports.md, "The whole book"): after an account's
// reports of a period are made (./make.ts), and with the top-level `reports.agency` a mapping, the
// book of that period is (re)written from what the store holds (src/report/overview/book-store.ts).
// Each account's night rewrites it; the last one makes it whole. One writer of a period's book at a
// time across workers (a claim, src/delivery/claims/claims.ts): each reads the store after taking
// it, so of two accounts' jobs at the same moment the later writer sees both accounts' reports. A
// book that cannot be written is one log line (`agency book not written`), never the account's
// delivery failed.
import { setTimeout as sleep } from 'node:timers/promises';
import { findAccount, groupBySinks, storeKey } from '../../config/account-settings.js';
import type { Period } from '../../history/period.js';
import { storeTarget } from '../../report/output.js';
import type { PdfSession } from '../../report/render/pdf.js';
import { agencyBookSettings, reportSettingsFor } from '../../report/settings.js';
import { overviewPrinter, styleOf } from '../../report/style.js';
import { errorMessage } from '../../util/errors.js';
import { writtenFormats } from './steps.js';
import type { DeliveryOptions } from './types.js';

/** How long a writer holds a period's book at most (a worker that died on another host). */
const BOOK_LOCK_SECONDS = 300;
/** How long a job waits for another job writing the same book, polling every BOOK_POLL_MS. */
const BOOK_WAIT_MS = 120_000;
const BOOK_POLL_MS = 250;

/** The period's book taken for this job (its release), or null when another job kept it too long. */
async function bookLock(o: DeliveryOptions, label: string): Promise<(() => Promise<void>) | null> {
  const claims = o.claims;
  if (!claims) return async () => {};
  const key = `book:${label}`;
  const started = performance.now();
  while (!(await claims.take(key, BOOK_LOCK_SECONDS, { whileAlive: true }))) {
    if (performance.now() - started >= (o.bookWaitMs ?? BOOK_WAIT_MS)) return null;
    await sleep(BOOK_POLL_MS);
  }
  return () => claims.release(key);
}

/** The book of each period the account's reports were just made of; PDF through `pdfSession` when asked. */
export async function scheduledBook(
  o: DeliveryOptions,
  made: readonly Period[],
  pdfSession: () => Promise<PdfSession>,
): Promise<void> {
  const s = agencyBookSettings(o.config);
  if (!s) return;
  const periods = new Map(made.map((p) => [p.label, p]));
  if (periods.size === 0) return;
  const accounts = o.config.accounts.map((a) => a.name);
  const stores = groupBySinks(o.config, accounts, storeKey).length;
  if (stores !== 1) {
    // Its links are relative: the accounts' reports must sit under one folder.
    o.logger.warn(
      { periods: [...periods.keys()] },
      `agency book not written: the accounts write to ${stores} object stores and its links are relative; run \`visync report --out DIR\` for it`,
    );
    return;
  }
  const { bookFromStore } = await import('../../report/overview/book-store.js');
  const { writeBook } = await import('../../report/overview/book-write.js');
  const settingsOf = (account: string, brandId: string) =>
    reportSettingsFor(o.config, findAccount(o.config, account), brandId);
  for (const period of periods.values()) {
    const release = await bookLock(o, period.label).catch((err: unknown) => {
      o.logger.error({ period: period.label, err: errorMessage(err) }, 'agency book not written');
      return undefined;
    });
    if (release === undefined) continue;
    if (release === null) {
      o.logger.warn(
        { period: period.label },
        `agency book not written: another report job has been writing it for ${(o.bookWaitMs ?? BOOK_WAIT_MS) / 1000} s; run \`visync report --period ${period.label}\` for it`,
      );
      continue;
    }
    try {
      const book = await bookFromStore({
        store: o.store,
        target: storeTarget(o.store),
        accounts,
        period,
        now: (o.now?.() ?? new Date()).getTime(),
        formatsFor: (a, b) => writtenFormats(settingsOf(a, b)),
        clientFor: (a, b) => {
          const style = styleOf(settingsOf(a, b));
          return { name: style.clientName, domain: style.clientDomain };
        },
        onUnreadable: (account, err) =>
          o.logger.warn(
            { period: period.label, book_account: account, err: errorMessage(err) },
            'agency book: an account could not be read; the book names it',
          ),
      });
      if (!book) continue;
      const session = s.formats.includes('pdf') ? await pdfSession() : undefined;
      const location = await writeBook({
        target: storeTarget(o.store),
        book,
        style: styleOf(s),
        print: overviewPrinter(session, s),
      });
      o.logger.info(
        { period: period.label, location, missing: book.missing.map((m) => m.account) },
        'agency book written',
      );
    } catch (err) {
      o.logger.error({ period: period.label, err: errorMessage(err) }, 'agency book not written');
    } finally {
      await release().catch(() => {});
    }
  }
}
