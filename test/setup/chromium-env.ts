// A setup file (runs in every test worker): the run's shared Chromium (test/setup/global-chromium.ts)
// as VISYNC_CHROMIUM_ENDPOINT, for the PDF sessions commands open in-process and for the CLI
// processes tests start, which inherit the environment. A test that must start a Chromium of its own
// sets reports.chromiumPath, or removes the variable from the child's environment.
import { inject } from 'vitest';

const endpoint = inject('chromiumEndpoint');
if (endpoint) process.env.VISYNC_CHROMIUM_ENDPOINT = endpoint;
