// The scheduled reports made (./deliver.ts): one read of the account's data per period and set of
// formats, one Chromium for all of them, and each workspace's outcome recorded (made, draft, or
// failed with the reason) and alerted.

import type { CompleteRun } from '../../history/complete-runs.js';
import { metrics } from '../../metrics/recorder.js';
import { makeAccountReports } from '../../report/make.js';
import { type ReportFormat, storeTarget } from '../../report/output.js';
import type { PdfSession } from '../../report/render/pdf.js';
import { reportSettingsFor } from '../../report/settings.js';
import { overviewPrinter, pdfFooter, styleOf } from '../../report/style.js';
import { errorMessage } from '../../util/errors.js';
import { reportAlert } from '../webhooks/payloads.js';
import { scheduledBook } from './book.js';
import type { DeliveryRecord, DeliveryState } from './records.js';
import { alertClientName, base, firstToAlert, notify, save, storedVersion, writtenFormats } from './steps.js';
import type { DeliveryOptions, Due } from './types.js';

export interface Made {
  due: Due;
  state: DeliveryState;
  record: DeliveryRecord;
}

/** Makes the reports (one read of the account's data per period and set of formats), recording each. */
export async function makeReports(
  o: DeliveryOptions,
  dues: readonly Due[],
  trigger: { runDate: string; runId: string },
  runs: readonly CompleteRun[],
): Promise<Made[]> {
  const groups = new Map<string, Due[]>();
  for (const d of dues) {
    const key = `${d.period.label} ${writtenFormats(d.settings).join(',')}`;
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  let pdf: PdfSession | undefined;
  const pdfSession = async () => {
    if (!pdf) {
      const { PdfSession } = await import('../../report/render/pdf.js');
      pdf = await PdfSession.open(reportSettingsFor(o.config, o.account).chromiumPath);
    }
    return pdf;
  };
  const out: Made[] = [];
  try {
    for (const group of groups.values()) {
      const first = group[0] as Due;
      const formats = writtenFormats(first.settings);
      // Chromium that does not start, a store that fails mid-way: the group's reports end failed
      // with the reason (tried again at the next trigger), the other groups go on.
      const r = await makeGroup(o, group, formats, runs, pdfSession).catch((err: unknown) => ({
        made: [],
        problems: [{ kind: 'no data' as const, line: errorMessage(err) }],
      }));
      const problems = r.problems.map((p) => p.line).join('; ');
      for (const d of group) {
        const m = r.made.find((x) => x.brandId === d.brandId);
        if (!m) {
          const reason = `report not made: ${problems || 'no data for the workspace'}`;
          out.push({
            due: d,
            state: 'failed',
            record: await save(o, { ...base(o, d, trigger), state: 'failed', reason }),
          });
          metrics.reportDelivery('failed');
          o.logger.error(
            { brand_id: d.brandId, period: d.period.label, err: reason },
            'scheduled report failed',
          );
          continue;
        }
        const state = d.settings.review ? 'draft' : 'made';
        const record = await save(o, {
          ...base(o, d, trigger),
          state,
          location: m.location,
          ...(await storedVersion(o, d)),
        });
        metrics.reportDelivery(state);
        o.logger.info(
          { brand_id: d.brandId, period: d.period.label, location: m.location, state },
          'scheduled report made',
        );
        const alerts = o.config.alerts;
        const clientName = await alertClientName(o, d.brandId, 'report');
        const facts = {
          account: o.account.name,
          brandId: d.brandId,
          ...(clientName ? { clientName } : {}),
          period: d.period.label,
          location: m.location,
          draft: d.settings.review,
        };
        const payload = alerts && reportAlert(facts, alerts.on);
        if (
          alerts &&
          payload &&
          (await firstToAlert(o, d.settings.review ? 'report-draft' : 'report-made', facts))
        ) {
          const sent = notify(o, alerts.webhook, payload, facts);
          // With the job's batch, the alert goes out beside the next reports and the mails (the
          // job awaits the batch at its end); without one, before the next report.
          if (!o.alertBatch) await sent;
        }
        out.push({ due: d, state, record });
      }
    }
    // The whole book (reports.agency a mapping) of each period made, with what the store now holds.
    const periods = out.filter((m) => m.state !== 'failed').map((m) => m.due.period);
    // Never the account's delivery failed by it: a book not written is a log line.
    await scheduledBook(o, periods, pdfSession).catch((err: unknown) =>
      o.logger.error({ err: errorMessage(err) }, 'agency book not written'),
    );
  } finally {
    await pdf?.close();
  }
  return out;
}

/** One group's reports: same period, same formats, one read of the account's data. */
async function makeGroup(
  o: DeliveryOptions,
  group: readonly Due[],
  formats: ReportFormat[],
  runs: readonly CompleteRun[],
  pdfSession: () => Promise<PdfSession>,
) {
  const first = group[0] as Due;
  const session = formats.includes('pdf') ? await pdfSession() : undefined;
  // The account's own settings (no workspace's): the overview's look and print.
  const accountSettings = reportSettingsFor(o.config, o.account);
  const byBrand = new Map(group.map((d) => [d.brandId, d]));
  return makeAccountReports({
    store: o.store,
    target: storeTarget(o.store),
    account: o.account.name,
    runs,
    period: first.period,
    brands: group.map((d) => d.brandId),
    formats,
    styleFor: (b) => styleOf((byBrand.get(b) as Due).settings),
    compareFor: (b) => (byBrand.get(b) as Due).settings.schedule?.compare ?? 'previous',
    ...(session
      ? {
          printPdf: (html: string, b: string) => {
            const s = (byBrand.get(b) as Due).settings;
            return session.render(html, {
              pageSize: s.pageSize,
              ...pdfFooter(styleOf(s)),
              locale: s.locale ?? null,
            });
          },
        }
      : {}),
    now: (o.now?.() ?? new Date()).getTime(),
    overview: { style: styleOf(accountSettings), print: overviewPrinter(session, accountSettings) },
  });
}
