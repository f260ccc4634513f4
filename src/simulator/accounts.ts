// The simulator's accounts (./server.ts): names, plans, keys and workspaces from the options,
// generated deterministically from the seed where not given, checked once at start.
import { generatedApiKey, generatedWorkspaceId } from './data.js';
import type { WindowLimit } from './rate-limit.js';
import type { SimulatedAccount, SimulatorOptions } from './types.js';

const PLANS_WITH_API_ACCESS = ['agency', 'concierge'];
export const DEFAULT_LIMIT: WindowLimit = { requests: 120, windowMs: 60_000 };

const ACCOUNT_NAME = /^[a-z0-9-]+$/;

export interface AccountState extends SimulatedAccount {
  limit: WindowLimit;
  owned: Set<string>;
}

export function hasApiAccess(plan: string): boolean {
  return PLANS_WITH_API_ACCESS.includes(plan.toLowerCase());
}

export function buildAccounts(options: SimulatorOptions, seed: number): AccountState[] {
  const specs = options.accounts ?? [{ name: 'demo' }];
  const perAccount = options.workspacesPerAccount ?? 5;
  const keysPerAccount = options.keysPerAccount ?? 1;
  const seenKeys = new Set<string>();
  const seenNames = new Set<string>();
  return specs.map((spec) => {
    if (!ACCOUNT_NAME.test(spec.name)) throw new Error(`account name "${spec.name}" must match [a-z0-9-]+`);
    if (seenNames.has(spec.name)) throw new Error(`account "${spec.name}" is listed twice`);
    seenNames.add(spec.name);
    const keys =
      spec.keys ?? Array.from({ length: keysPerAccount }, (_, i) => generatedApiKey(seed, spec.name, i));
    for (const key of keys) {
      // Never echo the key: error messages may end up in CI logs.
      if (seenKeys.has(key))
        throw new Error(`account "${spec.name}": an API key is used by two accounts or twice`);
      seenKeys.add(key);
    }
    const ws = spec.workspaces ?? perAccount;
    const workspaceIds =
      typeof ws === 'number'
        ? Array.from({ length: ws }, (_, i) => generatedWorkspaceId(seed, spec.name, i))
        : [...ws];
    const owned = new Set(workspaceIds);
    if (owned.size !== workspaceIds.length)
      throw new Error(`account "${spec.name}": workspace ids must be unique`);
    return {
      name: spec.name,
      plan: spec.plan ?? 'agency',
      keys,
      workspaceIds,
      limit: spec.limit ?? options.limit ?? DEFAULT_LIMIT,
      owned,
    };
  });
}
