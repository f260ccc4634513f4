// Which file a report's link opens and when there is none (src/delivery/report-link.ts): the page,
// else the PDF; a JSON-only report and an fs store are one line each, never a link to something
// else. The newest made period is the default (src/delivery/report-periods.ts). A real fs store
// with a signer beside it: the signing itself is tested against s3rver (report-mail-templates).
import { describe, expect, it } from 'vitest';
import { LINK_NEEDS_S3, LinkError, reportLink } from '../src/delivery/report-link.js';
import { newestReportPeriod } from '../src/delivery/report-periods.js';
import { manifestOf } from '../src/report/artefact.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { reportPrefix } from '../src/sinks/layout.js';
import * as h from './helpers/harness.js';

/** An fs store that signs as S3 would: the key and the lifetime in a URL. */
class SigningStore extends FsObjectStore {
  async presignGet(key: string, seconds: number, now: Date): Promise<string> {
    return `https://bucket.example/${key}?expires=${seconds}&at=${now.toISOString()}`;
  }
}

async function made(store: FsObjectStore, period: string, formats: string[]) {
  const prefix = reportPrefix('acme', 'ws 1', period);
  const files = formats.map((f) => ({ key: `${prefix}report.${f}`, bytes: 1, sha256: '0'.repeat(64) }));
  for (const f of files) await store.put(f.key, 'x', { contentType: 'text/plain' });
  const manifest = manifestOf(files, { toDate: false, through: '2026-11-30' });
  await store.put(`${prefix}manifest.json`, JSON.stringify(manifest), { contentType: 'application/json' });
}

const where = (period: string) => ({ account: 'acme', brandId: 'ws 1', period });
const NOW = new Date('2026-12-01T08:00:00Z');

describe('a link to a report', () => {
  it('opens the page, else the PDF; a JSON-only report, a report not made and an fs store are one line each', async () => {
    const store = new SigningStore(h.tempDir());
    await made(store, '2026-11', ['html', 'json', 'pdf']);
    await made(store, '2026-W47', ['pdf', 'json']);
    await made(store, '2026-10', ['json']);
    const page = await reportLink(store, where('2026-11'), 3600, NOW);
    expect(page).toEqual({
      url: `https://bucket.example/${reportPrefix('acme', 'ws 1', '2026-11')}report.html?expires=3600&at=2026-12-01T08:00:00.000Z`,
      expires: new Date('2026-12-01T09:00:00Z'),
      file: 'report.html',
    });
    expect((await reportLink(store, where('2026-W47'), 60, NOW)).file).toBe('report.pdf');
    await expect(reportLink(store, where('2026-10'), 60, NOW)).rejects.toThrow(
      /has neither a page nor a PDF \(formats: json\): make it with --format html$/,
    );
    await expect(reportLink(store, where('2026-09'), 60, NOW)).rejects.toThrow(
      /no manifest\.json\): make it first with visync report --period 2026-09$/,
    );
    const fsOnly = reportLink(new FsObjectStore(h.tempDir()), where('2026-11'), 60, NOW);
    await expect(fsOnly).rejects.toThrow(LinkError);
    await expect(fsOnly).rejects.toThrow(LINK_NEEDS_S3);
  });

  it('the default period is the made report that ends last', async () => {
    const store = new FsObjectStore(h.tempDir());
    expect(await newestReportPeriod(store, 'acme', 'ws 1')).toBeUndefined();
    await made(store, '2026-W47', ['html']);
    await made(store, '2026-10-01_2026-10-31', ['html']);
    expect(await newestReportPeriod(store, 'acme', 'ws 1')).toBe('2026-W47');
    await made(store, '2026-11', ['html']);
    // November ends after W47 (23 November).
    expect(await newestReportPeriod(store, 'acme', 'ws 1')).toBe('2026-11');
  });

  it('of two made reports that end the same day the longer is the default; a folder without a manifest is none', async () => {
    const store = new FsObjectStore(h.tempDir());
    // May 2026 and its last ISO week (25-31 May) end the same Sunday; the week's folder sorts after the month's.
    await made(store, '2026-05', ['html']);
    await made(store, '2026-W22', ['html']);
    expect(await newestReportPeriod(store, 'acme', 'ws 1')).toBe('2026-05');
    // A later period's files without its manifest.json: not a made report.
    await store.put(`${reportPrefix('acme', 'ws 1', '2026-06')}report.html`, 'x', {
      contentType: 'text/html',
    });
    expect(await newestReportPeriod(store, 'acme', 'ws 1')).toBe('2026-05');
  });
});
