/**
 * Which run a file, record or load belongs to: the account, the run id and the run's logical date
 * (`runDate`, the `dt=` of its keys). Kept apart from the manifest so that low layers (land,
 * curate) can name a run without loading the manifest code.
 */
export interface RunCoordinates {
  account: string;
  runId: string;
  runDate: string;
}
