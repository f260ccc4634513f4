// For a tier whose files share modules (isolate: false), each helper's per-test cleanup is
// registered once per file here: a module-level `afterEach` in a helper runs only in the file that
// first imported it. After-hooks run last-registered first, so workers and servers close before
// the harness removes the simulators and folders they use; spawned processes are on its stack
// (test/helpers/cleanup-stack.ts), killed before the folders made before them go.
import { afterEach } from 'vitest';
import { closeDuckDbs } from '../helpers/duckdb.js';
import { unmountSmallDisks } from '../helpers/full-disk.js';
import { closeGateProxies } from '../helpers/gate-proxy.js';
import { runCleanups } from '../helpers/harness.js';
import { closeJobs } from '../helpers/jobs.js';
import { closeMailboxes } from '../helpers/mailbox.js';
import { closeWebhooks } from '../helpers/webhook.js';

afterEach(runCleanups);
afterEach(unmountSmallDisks);
afterEach(closeDuckDbs);
afterEach(closeWebhooks);
afterEach(closeMailboxes);
afterEach(closeGateProxies);
afterEach(closeJobs);
