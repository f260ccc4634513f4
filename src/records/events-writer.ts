// Which release's rules detected a run's brand_events, from its manifest: `events_writer` (a replay
// that kept the rows an older release recorded says whose they are), else the manifest's `writer`;
// neither: 0.1.0, the one release before writers were recorded (releases.json). What the rows mean
// by that release: src/events/meanings.ts.
import { WRITER_NAME, type Writer } from '../util/writer.js';

/** The release a manifest without a writer was written by (releases.json: the first release). */
const UNRECORDED_WRITER = '0.1.0';

interface WrittenManifest {
  writer?: Writer | undefined;
  events_writer?: Writer | undefined;
}

/** The writer of the release that detected a run's events (a replay's manifest records it). */
export function eventsWriter(m: WrittenManifest): Writer {
  return m.events_writer ?? m.writer ?? { name: WRITER_NAME, version: UNRECORDED_WRITER };
}

/** The version of the release that detected a run's events. */
export function eventsDetectedBy(m: WrittenManifest): string {
  return eventsWriter(m).version;
}
