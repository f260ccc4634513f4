import type { BudgetWaitTooLong } from '../../src/api/rate-budget.js';

/**
 * How long a job that found no budget steps aside. Jobs of one account refused together would all
 * wake together and collide again; a spread of up to a second keeps them from stampeding.
 */
export function delayFor(err: BudgetWaitTooLong): number {
  return err.retryInMs + Math.floor(Math.random() * 1000);
}
