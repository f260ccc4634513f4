// The run's workspaces are done: the parent job of a run's flow in the account's shard queue (its
// BullMQ name stays `load`, aliased as JOB.workspacesDone in jobs/definitions.ts, so jobs queued by
// earlier versions still run). It runs once every workspace job of the run is done (or failed for
// good), reads what they reported and hands the run to one `finish-run` job in the finish queue
// (jobs/finish-queue.ts, src/run/queued/finish.ts), then completes. The heavy
// end of a run (normalise, gzip, record) does not run here: the shard queues take 8 jobs each per
// process, and the ~30 runs that end together would curate at once, starving the calls of the
// accounts still extracting. The finish queue takes a few at a time (worker.ts). The parent cannot
// move there itself: a flow keeps parent and children in one queue (one hash slot on a cluster).
import type { Job } from 'bullmq';
import {
  type FinishJobData,
  JOB,
  jobIds,
  jobOptions,
  type WorkspacesDoneJobData,
  WorkspacesDoneJobSchema,
} from '../../../jobs/definitions.js';
import { setPhase } from '../../../jobs/load-batches.js';
import { AWAITING_CURATE } from '../../records/run-state.js';
import type { JobContext } from './context.js';
import { unrecordedOnLastAttempt } from './ledger-end.js';
import { workspaceResults } from './workspace-results.js';

export async function processWorkspacesDone(
  job: Job<WorkspacesDoneJobData>,
  ctx: JobContext,
): Promise<{ finish: string }> {
  const data = WorkspacesDoneJobSchema.parse(job.data);
  const log = ctx.logger.child({ account: data.account, run_id: data.runId, job: job.id });
  return unrecordedOnLastAttempt(job, ctx, data.runId, log, async () => {
    const collected = await workspaceResults(job, data, ctx);
    const finish: FinishJobData = {
      ...data,
      workspaces: collected.workspaces,
      drift: [...data.drift, ...collected.drift],
      extractedAt: new Date().toISOString(),
    };
    const jobId = jobIds.finish(data.runId, data.startedAt);
    // Before the job exists: a worker that takes it at once then marks it curating, not waiting.
    await setPhase(ctx.ledger, data.runId, AWAITING_CURATE);
    // A job id BullMQ still holds adds nothing: a workspaces-done job retried after this adds no second one.
    await ctx.finishQueue.add(JOB.finish, finish, { ...jobOptions(ctx.config, data.kind, 'finish'), jobId });
    return { finish: jobId };
  });
}
