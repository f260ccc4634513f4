// A `report` job (src/run/queued/report-trigger.ts): the account's scheduled reports due after its nightly run
// of `runDate`, made and delivered by src/delivery/scheduled/deliver.ts. Sends and stale alerts are claimed in
// Redis (SET NX, jobs/redis-claims.ts) so two workers never both send; the state of each workspace's newest due report is
// kept in a Redis hash that `visync status` reads (jobs/status.ts). The same job sends the account's
// weekly brand-watch digest when one is due (src/delivery/digest/send.ts), under the same claims.
import type { Job } from 'bullmq';
import { type ReportJobData, ReportJobSchema } from '../../../jobs/definitions.js';
import { redisClaims } from '../../../jobs/redis-claims.js';
import { reportIndexKey, SHOWN_STATES, toDateIndexKey } from '../../../jobs/report-index.js';
import { accountOf } from '../../../jobs/worker-types.js';
import type { Claims } from '../../delivery/claims/claims.js';
import { type DigestOutcome, sendWeeklyDigest } from '../../delivery/digest/send.js';
import { deliverScheduled } from '../../delivery/scheduled/deliver.js';
import type { DeliveryOutcome } from '../../delivery/scheduled/types.js';
import { logicalRunId } from '../../records/run-id.js';
import { scheduleConfigured } from '../../report/settings.js';
import type { JobContext } from './context.js';

export async function processReport(
  job: Job<ReportJobData>,
  ctx: JobContext,
): Promise<
  | { reports: { brand_id: string; period: string; state: string }[]; digest?: DigestOutcome }
  | { skipped: string }
> {
  const data = ReportJobSchema.parse(job.data);
  const account = accountOf(ctx, data.account);
  if (!account) return { skipped: `account ${data.account} is no longer configured` };
  const log = ctx.logger.child({ account: data.account, job: job.id });
  const prefix = ctx.config.redis.prefix;
  const index = reportIndexKey(prefix, data.account);
  const toDateIndex = toDateIndexKey(prefix, data.account);
  const store = await ctx.storeFor(data.account);
  // Each value names this worker process and job: a worker that died is taken over at once.
  const claims: Claims = redisClaims(ctx.redis, prefix, String(job.id));
  const outcomes: DeliveryOutcome[] = scheduleConfigured(ctx.config, account)
    ? await deliverScheduled(
        {
          config: ctx.config,
          account,
          store,
          logger: log,
          claims,
          onState: async (brandId, period, state) => {
            if ((SHOWN_STATES as readonly string[]).includes(state))
              await ctx.redis.hset(index, brandId, JSON.stringify({ period, state }));
            else await ctx.redis.hdel(index, brandId);
          },
          onToDate: async (brandId, out) => {
            if (out) await ctx.redis.hset(toDateIndex, brandId, JSON.stringify(out));
            else await ctx.redis.hdel(toDateIndex, brandId);
          },
        },
        { runDate: data.runDate, runId: logicalRunId('nightly', data.account, data.runDate) },
      )
    : [];
  const digest = await sendWeeklyDigest({
    config: ctx.config,
    account,
    store,
    runDate: data.runDate,
    claims,
    logger: log,
  });
  return {
    reports: outcomes.map((o) => ({ brand_id: o.brandId, period: o.period, state: o.state })),
    ...(digest ? { digest } : {}),
  };
}
