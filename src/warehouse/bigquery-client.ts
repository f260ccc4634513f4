// Builds the one BigQuery client the warehouse uses. With `apiEndpoint` (an emulator or test
// server) it must never look for Google credentials: the client probes for them even with a custom
// endpoint, and a file upload without any crashes the process, so it gets a fixed placeholder token.
import { BigQuery } from '@google-cloud/bigquery';
import { OAuth2Client } from 'google-auth-library';

export interface BigQueryConfig {
  projectId: string;
  dataset: string;
  location: string;
  /** Root URL of an emulator or test server, e.g. `http://127.0.0.1:9050`. */
  apiEndpoint?: string;
  /** Applied to the tables by src/warehouse/ensure.ts; see PartitionSettings in ./schema.ts. */
  partitionExpirationDays?: number | undefined;
  requirePartitionFilter?: boolean | undefined;
}

// Far enough ahead that the client never tries to refresh it (it has no refresh token to do so).
const PLACEHOLDER_EXPIRY = Date.UTC(2999, 0, 1);

export interface BigQueryClientOptions {
  /** Retries of one request by the client itself (its default: 3); tests of an unreachable server use 0. */
  maxRetries?: number;
}

export function createBigQuery(cfg: BigQueryConfig, opts: BigQueryClientOptions = {}): BigQuery {
  // The client reads a maxRetries of 0 as unset (and retries 3 times): none has to be said with autoRetry.
  const retry =
    opts.maxRetries === undefined
      ? {}
      : { retryOptions: opts.maxRetries > 0 ? { maxRetries: opts.maxRetries } : { autoRetry: false } };
  if (!cfg.apiEndpoint) {
    return new BigQuery({ projectId: cfg.projectId, location: cfg.location, ...retry });
  }
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: 'placeholder', expiry_date: PLACEHOLDER_EXPIRY });
  return new BigQuery({
    projectId: cfg.projectId,
    location: cfg.location,
    apiEndpoint: cfg.apiEndpoint.replace(/\/+$/, ''),
    authClient,
    ...retry,
  });
}
