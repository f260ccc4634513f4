// The S3 client's sockets, with a deadline to connect of their own: a socket still connecting when
// it passes is destroyed with a ConnectTimeout, so that the store tells "could not connect" from
// "connected, no answer" by the error's type, not by the words of the SDK's message.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** A socket that did not connect in time. Named as the SDK names its timeouts: it retries them. */
class ConnectTimeout extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly ms: number) {
    super(`no connection within ${ms} ms`);
  }
}

function withDeadline(stream: Duplex | null | undefined, ms: number): Duplex | null | undefined {
  const socket = stream as Socket | null | undefined;
  if (!socket?.connecting) return stream;
  const timer = setTimeout(() => socket.destroy(new ConnectTimeout(ms)), ms);
  const clear = () => clearTimeout(timer);
  socket.once('connect', clear);
  socket.once('close', clear);
  return stream;
}

// As the SDK's own agents: sockets kept alive, at most 50 per host.
const AGENT = { keepAlive: true, maxSockets: 50 };

class DeadlineHttpAgent extends HttpAgent {
  constructor(readonly connectMs: number) {
    super(AGENT);
  }
  override createConnection(...args: Parameters<HttpAgent['createConnection']>) {
    return withDeadline(super.createConnection(...args), this.connectMs);
  }
}

class DeadlineHttpsAgent extends HttpsAgent {
  constructor(readonly connectMs: number) {
    super(AGENT);
  }
  override createConnection(...args: Parameters<HttpsAgent['createConnection']>) {
    return withDeadline(super.createConnection(...args), this.connectMs);
  }
}

/** The agents for an S3 client whose sockets connect within `connectMs`; destroy them with it. */
export function deadlineAgents(connectMs: number): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  return { httpAgent: new DeadlineHttpAgent(connectMs), httpsAgent: new DeadlineHttpsAgent(connectMs) };
}

/** Whether a caught value (or what it wraps) is a ConnectTimeout. */
export function isConnectTimeout(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && typeof current === 'object' && !seen.has(current)) {
    if (current instanceof ConnectTimeout) return true;
    seen.add(current);
    const e = current as { errors?: unknown[]; cause?: unknown };
    current = (Array.isArray(e.errors) ? e.errors[0] : undefined) ?? e.cause;
  }
  return false;
}
