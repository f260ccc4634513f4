// `run --once --brand X` without --account: run only the account that owns X. An account that lists
// its workspaces owns what it lists; for accounts with `brands: all`, one GET /brands each (through
// the account's budget) says what they own. A workspace no account owns, or that several accounts
// claim, stops the command before any run starts.

import type { Logger } from 'pino';
import { brandsCall } from '../api/endpoints.js';
import type { RateBudget } from '../api/rate-budget.js';
import type { AccountConfig } from '../config/schema.js';
import { createAccountClient } from '../extract/extract-account.js';
import { errorMessage, VisyncError } from '../util/errors.js';

export class BrandRoutingError extends VisyncError {
  override readonly name = 'BrandRoutingError';
  get code() {
    return 'brand_routing' as const;
  }
}

export async function routeBrands(o: {
  accounts: readonly AccountConfig[];
  brands: readonly string[];
  budget: RateBudget;
  logger: Logger;
}): Promise<Map<string, string[]>> {
  const owners = new Map<string, string[]>(o.brands.map((b) => [b, []]));
  for (const a of o.accounts) {
    if (a.brands === 'all') continue;
    for (const b of o.brands) if (a.brands.includes(b)) owners.get(b)?.push(a.name);
  }
  const unlisted = o.brands.filter((b) => owners.get(b)?.length === 0);
  const unasked: string[] = [];
  if (unlisted.length) {
    for (const a of o.accounts.filter((x) => x.brands === 'all')) {
      try {
        const client = createAccountClient({ account: a, budget: o.budget, logger: o.logger });
        const data = ((await client.get(brandsCall)).body as { data?: { id?: unknown }[] } | null)?.data;
        const ids = new Set((Array.isArray(data) ? data : []).map((d) => d?.id));
        for (const b of unlisted) if (ids.has(b)) owners.get(b)?.push(a.name);
      } catch (err) {
        unasked.push(`${a.name} (${errorMessage(err)})`);
      }
    }
  }
  const byAccount = new Map<string, string[]>();
  for (const [brand, names] of owners) {
    if (names.length > 1)
      throw new BrandRoutingError(
        `workspace ${brand} belongs to several accounts (${names.join(', ')}): add --account to choose`,
      );
    if (names.length === 0) {
      const why = unasked.length ? `; could not list the workspaces of ${unasked.join(', ')}` : '';
      throw new BrandRoutingError(
        `no configured account owns workspace ${brand}${why}: check the id, or add --account`,
      );
    }
    const name = names[0] as string;
    byAccount.set(name, [...(byAccount.get(name) ?? []), brand]);
  }
  return byAccount;
}
