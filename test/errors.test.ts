// Every error visync raises on purpose is a VisyncError with a stable code, matched by class.
import { describe, expect, it } from 'vitest';
import { RedisUnreachableError } from '../jobs/connection.js';
import { EndpointError } from '../jobs/ops-server.js';
import { WorkerStartAborted } from '../jobs/start-guard.js';
import { ApiError } from '../src/api/errors.js';
import { BudgetWaitTooLong } from '../src/api/rate-budget.js';
import { LimitExceeded } from '../src/api/response-body.js';
import { CliError } from '../src/cli/program-state.js';
import { UnknownAccountError } from '../src/config/account-settings.js';
import { ConfigError } from '../src/config/config-error.js';
import { BrandRoutingError } from '../src/run/brand-owner.js';
import { ReplayError } from '../src/run/replay.js';
import { S3StoreError } from '../src/sinks/s3-store.js';
import { StoreTooNewError } from '../src/sinks/store-marker.js';
import { VisyncError } from '../src/util/errors.js';

describe('VisyncError', () => {
  const errors: [Error, string][] = [
    [new ApiError({ kind: 'bad_key', account: 'acme', path: '/me', status: 401 }), 'api_failed'],
    [new LimitExceeded('too large'), 'response_limit'],
    [new BudgetWaitTooLong('acme', 5000), 'budget_wait_too_long'],
    [new ConfigError('visync.yaml', [{ path: 'accounts', message: 'missing' }]), 'config_invalid'],
    [new UnknownAccountError('unknown account x'), 'unknown_account'],
    [new S3StoreError('no bucket', 'no-such-bucket', { cause: undefined }), 's3_store'],
    [new BrandRoutingError('no owner'), 'brand_routing'],
    [new ReplayError('not found'), 'replay_failed'],
    [new CliError('bad flag'), 'cli_failed'],
    [new RedisUnreachableError('127.0.0.1:6379', new Error('connect ECONNREFUSED')), 'redis_unreachable'],
    [new EndpointError('worker listen address "x": expected HOST:PORT'), 'ops_endpoint'],
    [new WorkerStartAborted(), 'worker_start_aborted'],
    [new StoreTooNewError('written by 9.0.0'), 'store_too_new'],
  ];

  it.each(errors)('%s has its code and keeps its name', (err, code) => {
    expect(err).toBeInstanceOf(VisyncError);
    expect((err as VisyncError).code).toBe(code);
    expect(err.name).toBe(err.constructor.name);
  });

  it('codes are distinct and not own properties, so logged errors show the fields they always had', () => {
    expect(new Set(errors.map(([, code]) => code)).size).toBe(errors.length);
    for (const [err] of errors) expect(Object.keys(err)).not.toContain('code');
  });
});
