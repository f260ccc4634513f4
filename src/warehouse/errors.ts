// What the client's ApiError looks like once it reaches us: an HTTP code plus Google's `errors[]`.

export interface ApiErrorLike {
  code?: number;
  message?: string;
  errors?: { reason?: string; message?: string }[];
}

export function apiCode(err: unknown): number | undefined {
  const code = (err as ApiErrorLike | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

export const isNotFound = (err: unknown) => apiCode(err) === 404;
export const isAlreadyExists = (err: unknown) => apiCode(err) === 409;

/** Worth trying again with the same job id: throttling, server trouble, or a dropped connection. */
export function isTransient(err: unknown): boolean {
  const code = apiCode(err);
  if (code !== undefined) return code === 408 || code === 429 || code >= 500;
  const sysCode = (err as { code?: unknown } | null)?.code;
  return (
    typeof sysCode === 'string' &&
    /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EAI_AGAIN|UND_ERR)/.test(sysCode)
  );
}
