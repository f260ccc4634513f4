// The in-process budget of run --once, held to the contract every budget keeps.
import { MemoryRateBudget } from '../src/api/rate-budget.js';
import { rateBudgetContract } from './helpers/rate-budget-contract.js';

rateBudgetContract('MemoryRateBudget', { make: (opts) => new MemoryRateBudget(opts) });
