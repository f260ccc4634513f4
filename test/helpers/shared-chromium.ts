// A browser for looking at pages: the run's shared Chromium (test/setup/global-chromium.ts), connected
// to over its ws:// endpoint, so a test file does not start one of its own. Closing it closes only
// this connection and the contexts made through it, never the shared browser. Without the shared
// one (no /usr/bin/chromium) it starts one as before, which fails with playwright's own message.
import { type Browser, chromium } from 'playwright-core';
import { inject } from 'vitest';

export async function chromiumBrowser(): Promise<Browser> {
  const endpoint = inject('chromiumEndpoint');
  if (endpoint) return chromium.connect(endpoint);
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}
