// One Chromium for the whole test run: a playwright browser server started once (1-2 s of CPU
// that each test file, and each PDF session, would otherwise pay again). Its ws:// endpoint is
// provided as `chromiumEndpoint`; test/setup/chromium-env.ts puts it in VISYNC_CHROMIUM_ENDPOINT
// of every test worker, so visync's own PdfSession (src/report/render/pdf.ts) connects to it, and the
// helpers that look at pages connect to it too (test/helpers/shared-chromium.ts). Without
// /usr/bin/chromium nothing is provided: the tests then fail with their own message.
import { existsSync } from 'node:fs';
import { type BrowserServer, chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS } from '../../src/report/render/pdf.js';

const CHROMIUM = '/usr/bin/chromium';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM)) return async () => {};
  const server: BrowserServer = await chromium.launchServer({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared browser's ws:// endpoint; unset when /usr/bin/chromium is missing. */
    chromiumEndpoint?: string;
  }
}
