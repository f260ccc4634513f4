// Which release's rules detected a run's brand_events, from its manifest: `events_writer` (a replay
// that kept the rows an older release recorded says whose they are), else the manifest's `writer`;
// neither: 0.1.0, the one release before writers were recorded (releases.json). What the rows mean
// by that release: src/events/meanings.ts.
import type { Writer } from '../util/writer.js';

/** The release a manifest without a writer was written by (releases.json: the first release). */
export const UNRECORDED_WRITER = '0.1.0';

/** The version of the release that detected a run's events. */
export function eventsDetectedBy(m: {
  writer?: Writer | undefined;
  events_writer?: Writer | undefined;
}): string {
  return m.events_writer?.version ?? m.writer?.version ?? UNRECORDED_WRITER;
}
