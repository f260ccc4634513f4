// For a tier whose files share modules (unit: isolate false), the harness's per-test cleanup is
// registered once per file here: a module-level `afterEach` runs only in the file that first
// imported the module.
import { afterEach } from 'vitest';
import { runCleanups } from '../helpers/harness.js';

afterEach(runCleanups);
