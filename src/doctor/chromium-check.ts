// PDF reports need a browser: doctor starts the configured Chromium once and closes it again (or,
// with VISYNC_CHROMIUM_ENDPOINT and the default path, connects to that browser: src/report/render/pdf.ts).
import { ChromiumLaunchError, PdfSession } from '../report/render/pdf.js';
import { type CheckResult, fail, pass } from './check.js';

export const CHROMIUM_CHECK = 'chromium';

export async function checkChromium(path: string): Promise<CheckResult> {
  let session: PdfSession;
  try {
    session = await PdfSession.open(path);
  } catch (err) {
    if (err instanceof ChromiumLaunchError) return fail(CHROMIUM_CHECK, err.detail, err.fix);
    throw err;
  }
  try {
    const how = session.where === path ? 'starts' : 'answers';
    return pass(CHROMIUM_CHECK, `Chromium ${session.version} at ${session.where} ${how} (PDF reports)`);
  } finally {
    await session.close();
  }
}
