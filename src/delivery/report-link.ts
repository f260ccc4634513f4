// A time-limited link to a made report (docs/reports.md, "A link to the report"): an S3 presigned GET
// of its page (report.html: it reads on a phone and fetches nothing), or of its PDF when the version
// has no page. Used by `visync report link` and by the mail (`reports.mail.link`). The link names
// the object, not a version: a report made again is what the link opens from then on.
import { manifestFormats, parseManifest, type ReportManifest } from '../report/artefact.js';
import { reportPrefix } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';

export interface ReportLink {
  url: string;
  expires: Date;
  /** The object the link opens: `report.html` or `report.pdf`. */
  file: string;
}

/** Said when the store cannot give a link: one line, what to do. */
export const LINK_NEEDS_S3 =
  'a link needs an S3 store (sinks.s3): a report on the local disk has no address a client can open; send the report as an attachment, or move the store to S3';

export class LinkError extends Error {
  override name = 'LinkError';
}

/** The link to a report of `period`, valid `seconds` from `now`. */
export async function reportLink(
  store: ObjectStore,
  where: { account: string; brandId: string; period: string },
  seconds: number,
  now: Date,
  manifest?: ReportManifest,
): Promise<ReportLink> {
  if (!store.presignGet) throw new LinkError(LINK_NEEDS_S3);
  const prefix = reportPrefix(where.account, where.brandId, where.period);
  const m = manifest ?? parseManifest(await store.get(`${prefix}manifest.json`));
  if (!m)
    throw new LinkError(
      `no report of ${where.brandId} for ${where.period} in ${store.location} (no manifest.json): make it first with visync report --period ${where.period}`,
    );
  const formats = manifestFormats(m);
  const format = formats.includes('html') ? 'html' : formats.includes('pdf') ? 'pdf' : undefined;
  if (!format)
    throw new LinkError(
      `the report of ${where.brandId} for ${where.period} has neither a page nor a PDF (formats: ${formats.join(', ')}): make it with --format html`,
    );
  const file = `report.${format}`;
  const url = await store.presignGet(`${prefix}${file}`, seconds, now);
  return { url, expires: new Date(now.getTime() + seconds * 1000), file };
}
