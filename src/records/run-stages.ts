// The manifest's `stages`: how each stage of the run (extract, curate, load, record) ended, and
// when it ran. Absent in manifests written before stages were recorded; a stage a run never
// reached (it stopped before) is absent too. Written through src/run/stages.ts by every driver.
import { z } from 'zod';

export const STAGE_NAMES = ['extract', 'curate', 'load', 'record'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export const StageOutcomeSchema = z.enum(['succeeded', 'partial', 'failed', 'skipped']);
export type StageOutcome = z.infer<typeof StageOutcomeSchema>;

export const StageRecordSchema = z.object({
  outcome: StageOutcomeSchema,
  /** ISO times; absent for a skipped stage. */
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  /** Why it failed (or was partial), as the stage said. */
  error: z.string().optional(),
  /** The typed error's code (src/util/errors.ts), when the failure was one. */
  error_code: z.string().optional(),
});
export type StageRecord = z.infer<typeof StageRecordSchema>;

export const RunStagesSchema = z.object({
  extract: StageRecordSchema.optional(),
  curate: StageRecordSchema.optional(),
  load: StageRecordSchema.optional(),
  record: StageRecordSchema.optional(),
});
export type RunStages = z.infer<typeof RunStagesSchema>;
