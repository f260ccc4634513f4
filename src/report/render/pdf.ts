// A report's PDF: its self-contained HTML printed by Chromium (Debian's `chromium`, driven by
// playwright-core). One browser serves a whole `visync report` run, each report in a renderer process
// of its own; pages have JavaScript off and every network request refused (the report itself is
// served by the page's route), so the PDF shows exactly what the HTML holds. With
// VISYNC_CHROMIUM_ENDPOINT set (a playwright browser server's ws:// endpoint: Chromium run as a
// service of its own, or the one browser a test run shares) and reports.chromiumPath left at its
// default, a session connects to that browser instead of starting one, and closing the session
// closes only its own context and connection.
// docs/reports-pdf.md says what is and is not deterministic about the bytes.
import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { reasonOf } from '../../util/errors.js';
import { translator } from '../i18n/translate.js';
import { withAuthor } from './pdf-info.js';
import { withRelativeLinks } from './pdf-links.js';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

export type PageSize = 'A4' | 'Letter';

export interface PdfOptions {
  pageSize: PageSize;
  /** A line printed at the foot of every page, left of "Page N of M" (escaped here). */
  footerText?: string;
  /** The report's locale: "Page N of M" in its language (src/report/i18n/); unset: English. */
  locale?: string | null;
  /** Called with each request the page tried to make (all are refused). */
  onBlockedRequest?: (url: string) => void;
  /** The most one PDF may take (default 60 s); then PdfError, and the session goes on. */
  timeoutMs?: number;
}

/** What to do when Chromium is missing or does not start (doctor prints it as the fix too). */
export const CHROMIUM_FIX = 'apt-get install -y chromium, or set reports.chromiumPath';
/** The switches Chromium is started with (also the tests' shared browser: test/setup/global-chromium.ts). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

/** What to do when the browser named by VISYNC_CHROMIUM_ENDPOINT does not answer. */
export const CHROMIUM_ENDPOINT_FIX =
  'start the browser server VISYNC_CHROMIUM_ENDPOINT names, or unset it to start /usr/bin/chromium';

/** Chromium could not be started: `message` is the one line an operator reads. */
export class ChromiumLaunchError extends Error {
  override name = 'ChromiumLaunchError';
  /** What went wrong, without the fix: `Chromium not found at /usr/bin/chromium`. */
  readonly detail: string;
  /** What to do about it. */
  readonly fix: string;
  constructor(detail: string, fix = CHROMIUM_FIX) {
    super(`${detail}: ${fix}`);
    this.detail = detail;
    this.fix = fix;
  }
}

// Margins leave room for the footer Chromium draws in the bottom margin.
const MARGIN = { top: '16mm', bottom: '18mm', left: '14mm', right: '14mm' };

// A 200-character footer wraps onto a second line rather than pushing "Page N of M" off the page;
// right-to-left text keeps its own direction.
const FOOTER_STYLE =
  'width:100%;margin:0 14mm;font:8px sans-serif;color:#555;display:flex;justify-content:space-between;align-items:flex-end;gap:4mm';
const FOOTER_TEXT_STYLE = 'flex:1;overflow-wrap:anywhere;unicode-bidi:plaintext';

/**
 * Chromium fills `pageNumber` and `totalPages` spans; the rest is ours and must be escaped. The
 * page count reads in the locale's language ("Seite 1 von 6"); the spans go in after escaping.
 */
export function footerTemplate(footerText = '', locale: string | null = null): string {
  const pages = escapeText(translator(locale).t('pdf:footer.page', { page: '\u0001', pages: '\u0002' }))
    .replace('\u0001', '<span class="pageNumber"></span>')
    .replace('\u0002', '<span class="totalPages"></span>');
  return `<div style="${FOOTER_STYLE}"><span style="${FOOTER_TEXT_STYLE}">${escapeText(footerText)}</span><span style="white-space:nowrap">${pages}</span></div>`;
}

/** Text for HTML: markup characters as entities (also the report e-mail's body, src/delivery/mail/compose.ts). */
export function escapeText(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/** A report's PDF could not be printed: `message` is one line. */
export class PdfError extends Error {
  override name = 'PdfError';
}

export const DEFAULT_PDF_TIMEOUT_MS = 60_000;
/** A browser start takes 1-2 s here, several times that on a busy machine; never minutes. */
export const CHROMIUM_START_TIMEOUT_MS = 30_000;

/** Reports printed at once: one per core of the 2-core machine docs/reports.md measured on. */
export const PRINTS_AT_ONCE = 2;

/** A page a session prints on, and the report it is printing now (its route serves it). */
interface Printer {
  page: Page;
  job?: { url: string; html: string; onBlockedRequest?: ((url: string) => void) | undefined };
}

/**
 * One Chromium for many reports, up to PRINTS_AT_ONCE printed at a time, each in a renderer
 * process of its own. Chromium numbers the tagged PDF's structure elements with DOM node ids, which
 * a renderer process keeps counting from one document to the next: a report printed in a process
 * that printed another before would get other bytes. So each report is a navigation of a kept page
 * to a site of its own (`http://report-N.invalid/`, served by the page's route, never the network),
 * which Chromium's site isolation gives a new process; a new page per report did that too, at about
 * twice the CPU (docs/reports-pdf.md). Close the session when done (also after a failure).
 */
export class PdfSession {
  private readonly idle: Printer[] = [];
  private free = PRINTS_AT_ONCE;
  private readonly waiting: (() => void)[] = [];
  private printed = 0;

  private constructor(
    private readonly browser: Browser,
    private readonly context: BrowserContext,
    /** The browser's version, e.g. `156.0.7520.0`. */
    readonly version: string,
    /** Where the browser is: its path, or `VISYNC_CHROMIUM_ENDPOINT ws://host:port` (no path). */
    readonly where: string,
  ) {}

  /**
   * Starts the Chromium at `chromiumPath`; connects to `endpoint` instead (by default
   * VISYNC_CHROMIUM_ENDPOINT) when it is set and `chromiumPath` is the default: a path configured
   * on purpose is always the one started.
   */
  static async open(
    chromiumPath: string = DEFAULT_CHROMIUM_PATH,
    endpoint: string | undefined = process.env[ENDPOINT_VAR],
  ): Promise<PdfSession> {
    const connect = Boolean(endpoint) && chromiumPath === DEFAULT_CHROMIUM_PATH;
    if (!connect && !existsSync(chromiumPath))
      throw new ChromiumLaunchError(`Chromium not found at ${chromiumPath}`);
    // Imported here so commands that make no PDF never load playwright-core.
    const { chromium } = await import('playwright-core');
    const where = connect ? `${ENDPOINT_VAR} ${endpointOrigin(endpoint as string)}` : chromiumPath;
    let browser: Browser;
    try {
      browser = connect
        ? await chromium.connect(endpoint as string, { timeout: CHROMIUM_START_TIMEOUT_MS })
        : await chromium.launch({
            executablePath: chromiumPath,
            args: CHROMIUM_ARGS,
            timeout: CHROMIUM_START_TIMEOUT_MS,
          });
    } catch (err) {
      throw new ChromiumLaunchError(
        `Chromium at ${where} did not ${connect ? 'answer' : 'start'} (${reasonOf(err)})`,
        connect ? CHROMIUM_ENDPOINT_FIX : CHROMIUM_FIX,
      );
    }
    try {
      const context = await browser.newContext({ javaScriptEnabled: false, serviceWorkers: 'block' });
      return new PdfSession(browser, context, browser.version(), where);
    } catch (err) {
      await browser.close();
      throw err;
    }
  }

  /**
   * Prints one report. Calls made at once are printed PRINTS_AT_ONCE at a time, the others wait
   * their turn (memory stays flat); each PDF is the same whatever is printed beside or before it.
   */
  async render(html: string, o: PdfOptions): Promise<Buffer> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await this.print(html, o);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }

  private async printer(timeoutMs: number): Promise<Printer> {
    const kept = this.idle.pop();
    if (kept) return kept;
    const printer: Printer = { page: await this.context.newPage() };
    // data: URIs (the embedded logo) are not requests; anything else would leave the file.
    await printer.page.route('**/*', (route) => {
      const request = route.request();
      const job = printer.job;
      if (job && request.url() === job.url && request.isNavigationRequest())
        return route.fulfill({ contentType: 'text/html; charset=utf-8', body: job.html });
      job?.onBlockedRequest?.(request.url());
      return route.abort('blockedbyclient');
    });
    // A new page's first navigation stays in the process of its blank document, whose node ids are
    // taken: an empty first document of its own makes every report a later, fresh-process one.
    await show(printer, { url: 'http://report-0.invalid/', html: '' }, timeoutMs);
    return printer;
  }

  private async print(html: string, o: PdfOptions): Promise<Buffer> {
    const timeoutMs = o.timeoutMs ?? DEFAULT_PDF_TIMEOUT_MS;
    let printer: Printer | undefined;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new PdfError(`Chromium did not print the PDF within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
    });
    this.printed += 1;
    const url = `http://report-${this.printed}.invalid/${PAGE_FOLDERS}`;
    const printing = (async () => {
      printer = await this.printer(timeoutMs);
      await show(printer, { url, html, onBlockedRequest: o.onBlockedRequest }, timeoutMs);
      const page = printer.page;
      // The page's own <meta name="author"> (the agency), as the PDF's Author (./pdf-info.ts).
      const author = await page
        .locator('meta[name="author"]')
        .evaluateAll((ms) => ms.map((m) => m.getAttribute('content')).find((c) => c) ?? null);
      const pdf = await page.pdf({
        format: o.pageSize,
        printBackground: true,
        displayHeaderFooter: true,
        // An empty header: Chromium's default prints the date and the title.
        headerTemplate: '<span></span>',
        footerTemplate: footerTemplate(o.footerText, o.locale ?? null),
        margin: MARGIN,
        tagged: true,
        outline: true,
      });
      // Its links as the HTML has them, relative to the page, never to the made-up origin.
      return withAuthor(withRelativeLinks(pdf, url), author);
    })();
    try {
      const pdf = await Promise.race([printing, expired]);
      const done = printer as Printer | undefined;
      if (done) {
        done.job = undefined;
        this.idle.push(done);
      }
      return pdf;
    } catch (err) {
      // Closing the page also ends a print still under way after the deadline; a page opened after
      // it is closed as soon as it exists.
      const close = () => (printer as Printer | undefined)?.page.close().catch(() => undefined);
      if (printer) await close();
      else void printing.catch(() => undefined).finally(close);
      if (err instanceof PdfError) throw err;
      throw new PdfError(`could not print the PDF: ${reasonOf(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the browser it started; of a browser it connected to, only its context and connection. */
  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    await this.browser.close();
  }
}

const ENDPOINT_VAR = 'VISYNC_CHROMIUM_ENDPOINT';

/**
 * The folders a printed page sits in under its made-up origin. A relative link resolves against
 * them (`../brand=...` from the overview), and ./pdf-links.ts writes it back relative to the page;
 * at the origin's root a leading `../` would be lost. Eight: the pages' links climb one folder.
 */
const PAGE_FOLDERS = 'page/'.repeat(8);

/** `ws://host:port` of an endpoint: its path is the browser server's secret, never printed. */
function endpointOrigin(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'an endpoint that is not a URL';
  }
}

/** Navigates the printer's page to the job's URL, which its route answers with the job's HTML. */
async function show(printer: Printer, job: NonNullable<Printer['job']>, timeoutMs: number): Promise<void> {
  printer.job = job;
  await printer.page.goto(job.url, { waitUntil: 'load', timeout: timeoutMs });
}

/** One PDF with a browser of its own; for many, open a PdfSession. */
export async function renderPdf(html: string, o: PdfOptions & { chromiumPath?: string }): Promise<Buffer> {
  const session = await PdfSession.open(o.chromiumPath);
  try {
    return await session.render(html, o);
  } finally {
    await session.close();
  }
}

/**
 * The PDF with its creation and modification dates replaced by a fixed one of the same length, so
 * two renders of the same HTML compare equal (nothing else in Chromium's output varies).
 */
export function withoutPdfDates(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const fixed = text.replace(/\/(CreationDate|ModDate) ?\(D:[^)]*\)/g, (m) =>
    m.replace(/\(D:[^)]*\)/, (d) => `(D:${'0'.repeat(d.length - 4)})`),
  );
  return Buffer.from(fixed, 'latin1');
}
