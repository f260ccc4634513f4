// The alerts webhook (alerts.webhook): doctor checks that its host name resolves, that it accepts a
// connection and, for https, that the TLS handshake succeeds with a certificate this host trusts.
// It SENDS NOTHING (no HTTP request: a test message is `visync alerts test`). The URL is a secret:
// only its scheme and host are printed.
import { lookup } from 'node:dns/promises';
import { connect as tcpConnect } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { webhookOrigin } from '../delivery/webhooks/probe.js';
import { errorMessage } from '../util/errors.js';
import { type CheckResult, fail, pass, systemCode } from './check.js';

export const WEBHOOK_CHECK = 'alerts webhook';
export const WEBHOOK_FIX =
  'check the host of alerts.webhook, DNS and the network (firewall, proxy) from this host; `visync alerts test` posts a test message';

/** Opens a connection (TLS for https), then closes it without a byte of HTTP. */
function handshake(url: URL, address: string, signal: AbortSignal): Promise<string | undefined> {
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));
  // The host name without IPv6 brackets, for SNI and the certificate check.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    // Connected to the address resolved above; the certificate must name the URL's host (SNI and
    // identity check), or its address when the URL holds one.
    const socket = https
      ? tlsConnect({ host: address, port, servername: /^[\d.:]+$/.test(host) ? undefined : host })
      : tcpConnect({ host: address, port });
    // The doctor's deadline lets go of the socket.
    signal.addEventListener('abort', () => socket.destroy(), { once: true });
    if (https)
      (socket as TLSSocket).once('secureConnect', () => {
        const protocol = (socket as TLSSocket).getProtocol() ?? 'TLS';
        socket.destroy();
        resolve(protocol);
      });
    else
      socket.once('connect', () => {
        socket.destroy();
        resolve(undefined);
      });
    socket.once('error', (err) => {
      socket.destroy();
      reject(err);
    });
  });
}

export async function checkWebhook(webhook: string, signal: AbortSignal): Promise<CheckResult> {
  const url = new URL(webhook);
  const origin = webhookOrigin(webhook);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let address: string;
  try {
    address = (await lookup(host)).address;
  } catch (err) {
    return fail(
      WEBHOOK_CHECK,
      `${origin}: the name does not resolve (${systemCode(err) ?? errorMessage(err)})`,
      WEBHOOK_FIX,
    );
  }
  try {
    const tls = await handshake(url, address, signal);
    return pass(
      WEBHOOK_CHECK,
      `${origin}: resolves (${address}), connects${tls ? `, ${tls} handshake with a trusted certificate` : ''}; nothing sent (\`visync alerts test\` sends a test message)`,
    );
  } catch (err) {
    const code = systemCode(err) ?? (err as { code?: string }).code;
    const tlsTrouble =
      url.protocol === 'https:' && code !== undefined && !/^E(CONN|HOST|NET|TIMEDOUT)/.test(code);
    const what = tlsTrouble ? 'the TLS handshake failed' : 'does not accept a connection';
    return fail(
      WEBHOOK_CHECK,
      `${origin} (${address}): ${what}: ${code ?? errorMessage(err)}`,
      tlsTrouble
        ? "the receiver's certificate is not trusted here (expired, self-signed or for another name): fix the receiver's certificate, or trust its CA with NODE_EXTRA_CA_CERTS"
        : WEBHOOK_FIX,
    );
  }
}
