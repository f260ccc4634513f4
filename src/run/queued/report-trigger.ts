// After a nightly run ends (any of the three places a run is recorded: src/run/queued/run.ts,
// finish.ts, load-batch.ts), an account with a report schedule or a weekly brand-watch digest gets a
// `report` job on the report queue (jobs/report-queue.ts, src/run/queued/report.ts), so that its mail
// and webhooks never hold a slot a finish needs. Whatever the run's status: the job itself decides
// whether the due period is covered, and records a stale report when it is not.
import type { Logger } from 'pino';
import { JOB, jobIds, type ReportJobData } from '../../../jobs/definitions.js';
import { batchJobOptions } from '../../../jobs/load-batches.js';
import { accountOf } from '../../../jobs/worker-types.js';
import { digestSettings } from '../../events/rules.js';
import type { Manifest } from '../../records/manifest.js';
import { scheduleConfigured } from '../../report/settings.js';
import { errorMessage } from '../../util/errors.js';
import type { JobContext } from './context.js';

/** Never throws: a report that could not be queued is logged and the next nightly run queues it. */
export async function queueScheduledReports(
  ctx: JobContext,
  m: Pick<Manifest, 'account' | 'kind' | 'run_date'>,
  log: Logger,
): Promise<void> {
  if (m.kind !== 'nightly') return;
  const account = accountOf(ctx, m.account);
  if (!account) return;
  const digest = ctx.config.alerts && digestSettings(ctx.config.watch, account.watch);
  if (!scheduleConfigured(ctx.config, account) && !digest) return;
  const data: ReportJobData = { account: m.account, runDate: m.run_date };
  try {
    // Queued once the run is recorded: the report's data is there, whatever else is still running.
    await ctx.reportQueue.add(JOB.report, data, {
      ...batchJobOptions(ctx.config),
      jobId: jobIds.report(m.account, m.run_date),
    });
  } catch (err) {
    log.warn(
      { account: m.account, run_date: m.run_date, err: errorMessage(err) },
      'scheduled report not queued',
    );
  }
}
