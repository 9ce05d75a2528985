/**
 * The filtering proxy: the only way out of a sandbox whose `sandbox.network`
 * is a host list. It listens on a Unix socket in a private folder (0700) of
 * editwarden's; the sandbox has no network of its own (`--unshare-net`) and
 * reaches this socket through a bind mount and a bridge inside it
 * (bridge.ts). It speaks the two ways HTTP clients use a proxy:
 *
 *   CONNECT host:port HTTP/1.1          a tunnel (HTTPS, git over https): allowed → "200", then bytes both ways
 *   GET http://host[:port]/path HTTP/1.1 plain HTTP in absolute form: allowed → forwarded, the answer relayed
 *
 * and decides ONE thing per connection it makes: the destination. Every TCP
 * connection it opens goes to a host:port a pattern lets through
 * (config/host-patterns.ts), at an address checked before the connect and
 * used for it (no second DNS lookup between check and use). Everything else
 * is answered 403 with E_NETWORK_REFUSED and reported through `onRefused`
 * (the runner tallies it for the event log). What the command sends to an
 * allowed destination is its own business: the proxy neither reads TLS nor
 * rewrites bodies.
 *
 * Attacks it defends against, each beside its check below: a host not
 * listed; an IP literal (or a numeric spelling of one) not itself listed; a
 * wildcard name pointed at the host's loopback or link-local addresses; a
 * plain request whose Host header names another host than its URI (one
 * front server routing by Host would reach a site nobody listed); a request
 * line that is not a proxy request; header floods (Node's parser caps a head
 * at 16 KiB); connection floods (MAX_CONNECTIONS). Fails closed: a proxy
 * that is down or closed leaves the command with no network at all.
 *
 * It must never open a connection to a destination it did not match, and
 * never start a command (it is a server; the runner starts commands).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '../../errors.js';
import { type Destination, type HostPattern, HostSyntaxError, matchingPattern, parseAuthority, parseDestination } from '../../config/host-patterns.js';
import { isHostLocalAddress } from './address.js';
import { NETWORK_REFUSAL_REASONS, type NetworkRefusal } from './refusals.js';

export interface NetworkProxyOptions {
  /** The patterns of `sandbox.network` (config/host-patterns.ts parseHostPattern). */
  allow: readonly HostPattern[];
  /** Called once per refused connection (never throws into the proxy). */
  onRefused?: (refusal: NetworkRefusal) => void;
  /** `.test` names resolved to loopback without DNS (test-hosts.ts; tests only). */
  testHosts?: ReadonlyMap<string, string>;
  /** Folder under which the socket's private folder is made (default: os.tmpdir()). */
  tmpDir?: string;
  /** Milliseconds for a connection to an allowed destination to open (default 30 s). */
  connectTimeoutMs?: number;
}

export interface NetworkProxy {
  /** The Unix socket to bind into the sandbox. */
  readonly socketPath: string;
  /** Stops listening, ends every open connection and removes the socket's folder. */
  close(): Promise<void>;
}

/** Open connections the proxy serves at once; past it new ones are dropped (a command cannot exhaust editwarden's descriptors). */
const MAX_CONNECTIONS = 256;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Hop-by-hop and proxy-only headers: never forwarded to the destination. */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

type Decision = { ok: true; dest: Destination; pattern: HostPattern } | { ok: false; refusal: NetworkRefusal };

/** The decision for a destination against the list (no DNS yet). */
function decide(allow: readonly HostPattern[], dest: Destination, method: string): Decision {
  const pattern = matchingPattern(allow, dest);
  // A listed name never admits an address: only a pattern that is that very IP literal does.
  if (pattern === null) return { ok: false, refusal: { host: dest.host, port: dest.port, method, reason: dest.ip ? 'ip-literal' : 'not-listed' } };
  return { ok: true, dest, pattern };
}

function refusalText(r: NetworkRefusal): string {
  const target = r.port === null ? r.host : `${r.host.includes(':') ? `[${r.host}]` : r.host}:${r.port}`;
  return [
    `editwarden refused the connection to ${target} (${ErrorCode.NETWORK_REFUSED}): ${NETWORK_REFUSAL_REASONS[r.reason]}.`,
    'hint: this command may reach only the hosts sandbox.network lists; a person can add this host to sandbox.network in their own config (~/.config/editwarden/config.yml). The refusal is in `editwarden log`.',
    '',
  ].join('\n');
}

function refusalResponse(r: NetworkRefusal): string {
  const body = refusalText(r);
  const status = r.reason === 'bad-request' || r.reason === 'host-mismatch' ? '400 Bad Request' : '403 Forbidden';
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Editwarden-Refused: ${r.reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** The socket's private folder: made fresh (0700) so no other user can reach or replace the socket. A Unix socket path is short (108 bytes). */
function socketFolder(tmpDir: string | undefined): string {
  const base = tmpDir ?? os.tmpdir();
  const parent = path.join(base, 'editwarden-net-XXXXXX').length + '/proxy.sock'.length < 100 ? base : '/tmp';
  return fs.mkdtempSync(path.join(parent, 'editwarden-net-'));
}

export async function startNetworkProxy(options: NetworkProxyOptions): Promise<NetworkProxy> {
  const dir = socketFolder(options.tmpDir);
  fs.chmodSync(dir, 0o700);
  const socketPath = path.join(dir, 'proxy.sock');
  const live = new Set<Duplex>();
  const track = (s: Duplex): void => {
    live.add(s);
    s.once('close', () => live.delete(s));
  };
  const refuse = (r: NetworkRefusal): void => {
    try {
      options.onRefused?.(r);
    } catch {
      // A record that cannot be kept must not keep the refusal from being answered.
    }
  };
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;

  /** The address to connect to for an allowed destination, or the refusal (a wildcard name at a host-local address). */
  const resolve = async (d: Extract<Decision, { ok: true }>, method: string): Promise<{ address: string; family: 4 | 6 } | NetworkRefusal | null> => {
    const { dest, pattern } = d;
    if (dest.ip) return { address: dest.host, family: net.isIPv6(dest.host) ? 6 : 4 };
    const pinned = options.testHosts?.get(dest.host);
    let found: Array<{ address: string; family: number }>;
    if (pinned !== undefined) found = [{ address: pinned, family: net.isIPv6(pinned) ? 6 : 4 }];
    else {
      try {
        found = await dnsLookup(dest.host, { all: true });
      } catch {
        return null;
      }
    }
    // DNS rebinding: a name under a wildcard is someone else's to point; it may not lead to this machine's own addresses.
    const usable = pattern.kind === 'wildcard' ? found.filter((a) => !isHostLocalAddress(a.address)) : found;
    const first = usable[0];
    if (first === undefined) return found.length > 0 ? { host: dest.host, port: dest.port, method, reason: 'address' } : null;
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  };

  const server = http.createServer({ maxHeaderSize: 16 * 1024 });
  server.maxConnections = MAX_CONNECTIONS;
  server.on('connection', track);

  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    void (async () => {
      let dest: Destination;
      try {
        // CONNECT names host:port exactly (no URL parser's leniency: `0x7f.1:443` is refused here, not resolved).
        dest = parseAuthority(req.url ?? '');
      } catch {
        const r: NetworkRefusal = { host: String(req.url ?? ''), port: null, method: 'CONNECT', reason: 'bad-request' };
        refuse(r);
        client.end(refusalResponse(r));
        return;
      }
      const decision = decide(options.allow, dest, 'CONNECT');
      if (!decision.ok) {
        refuse(decision.refusal);
        client.end(refusalResponse(decision.refusal));
        return;
      }
      const target = await resolve(decision, 'CONNECT');
      if (target === null) {
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      if ('reason' in target) {
        refuse(target);
        client.end(refusalResponse(target));
        return;
      }
      // The checked address, not the name: nothing resolves it again between the check and the connect.
      const upstream = net.connect({ host: target.address, port: dest.port, family: target.family, timeout: connectTimeoutMs });
      track(upstream);
      upstream.once('timeout', () => upstream.destroy());
      upstream.once('error', () => {
        if (!client.destroyed && client.writable && upstream.bytesRead === 0 && !upstream.connecting) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        else client.destroy();
      });
      upstream.once('connect', () => {
        upstream.setTimeout(0);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    })();
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const method = req.method ?? 'GET';
    const deny = (r: NetworkRefusal): void => {
      refuse(r);
      const body = refusalText(r);
      res.writeHead(r.reason === 'bad-request' || r.reason === 'host-mismatch' ? 400 : 403, { 'content-type': 'text/plain; charset=utf-8', 'x-editwarden-refused': r.reason, connection: 'close' });
      res.end(body);
    };
    const raw = req.url ?? '';
    // Only absolute-form http:// is a proxy request; https:// arrives as CONNECT, origin-form is for servers.
    if (!/^http:\/\//i.test(raw)) return deny({ host: raw.slice(0, 300), port: null, method, reason: 'bad-request' });
    let url: URL;
    let dest: Destination;
    try {
      url = new URL(raw);
      if (url.username !== '' || url.password !== '') throw new HostSyntaxError('credentials in the URI');
      dest = parseDestination(url.hostname.replace(/^\[(.*)\]$/, '$1'), url.port === '' ? 80 : Number(url.port));
    } catch {
      return deny({ host: raw.slice(0, 300), port: null, method, reason: 'bad-request' });
    }
    // Host header ≠ URI: a front server routing by Host would take the request to a site the list does not name.
    const hostHeader = req.headers.host;
    if (hostHeader !== undefined) {
      let named: Destination | null;
      try {
        named = parseAuthority(hostHeader.includes(':') && !hostHeader.endsWith(']') ? hostHeader : `${hostHeader}:80`);
      } catch {
        named = null;
      }
      if (named === null || named.host !== dest.host || named.port !== dest.port) return deny({ host: dest.host, port: dest.port, method, reason: 'host-mismatch' });
    }
    const decision = decide(options.allow, dest, method);
    if (!decision.ok) return deny(decision.refusal);
    void (async () => {
      const target = await resolve(decision, method);
      if (target === null || 'reason' in target) {
        if (target !== null) return deny(target);
        res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end(`editwarden's proxy could not resolve ${dest.host}\n`);
        return;
      }
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
      headers.host = url.host;
      headers.connection = 'close';
      const upstream = http.request({
        host: target.address,
        family: target.family,
        port: dest.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers,
        agent: false,
        setHost: false,
        timeout: connectTimeoutMs,
      });
      upstream.once('timeout', () => upstream.destroy(new Error('timeout')));
      upstream.once('response', (answer) => {
        upstream.setTimeout(0);
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
        answer.pipe(res);
      });
      upstream.once('error', () => {
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
          res.end(`editwarden's proxy could not reach ${dest.host}:${dest.port}\n`);
        } else res.destroy();
      });
      req.pipe(upstream);
    })();
  });

  // A request line or head Node cannot parse: answered 400, never forwarded.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Only the owner reaches the socket (its folder is 0700 too).
  fs.chmodSync(socketPath, 0o600);

  let closed: Promise<void> | null = null;
  return {
    socketPath,
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of live) s.destroy();
        server.closeAllConnections?.();
      }).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
      return closed;
    },
  };
}
