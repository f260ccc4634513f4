import type { BudgetWaitTooLong } from '../../api/rate-budget.js';

/**
 * How long a job that found no budget steps aside. Jobs of one account refused together are told
 * times apart already (RESERVE in jobs/redis-rate-budget.ts counts the calls promised before
 * them); a spread of up to a quarter second keeps those told the same time from stampeding,
 * without leaving the freed window unused for long.
 */
export function delayFor(err: BudgetWaitTooLong): number {
  return err.retryInMs + Math.floor(Math.random() * 250);
}
