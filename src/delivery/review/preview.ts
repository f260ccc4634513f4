// The review page's preview (jobs/review-page.ts): the report's own report.html of its current
// version, its bytes checked against manifest.json (never a file the manifest does not list).
import { checkedFile, parseManifest } from '../../report/artefact.js';
import { reportPrefix } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';

/** The page's bytes, or why there is none to show. */
export async function previewHtml(
  store: ObjectStore,
  account: string,
  t: { brandId: string; period: string },
): Promise<{ html: Buffer } | { why: string }> {
  const prefix = reportPrefix(account, t.brandId, t.period);
  const manifest = parseManifest(await store.get(`${prefix}manifest.json`));
  if (!manifest) return { why: 'no whole report here (no readable manifest.json): make it again' };
  try {
    return { html: await checkedFile(manifest, prefix, 'report.html', (k) => store.get(k)) };
  } catch (err) {
    return { why: (err as Error).message };
  }
}
