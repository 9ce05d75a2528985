/**
 * How a command inside a sandbox without a network reaches the filtering
 * proxy (proxy.ts): the proxy's Unix socket is bound into the sandbox at
 * SANDBOX_PROXY_SOCKET, and a tiny bridge — started first, inside the
 * sandbox, by the same Node that runs editwarden — listens on
 * 127.0.0.1:SANDBOX_PROXY_PORT of the sandbox's OWN network namespace and
 * copies each TCP connection to the socket. Only then does it start the
 * command (its child, stdio passed through), and it exits with the
 * command's exit code or signal. HTTP_PROXY and friends (proxyEnv) point the
 * command's tools at that port. (Anthropic's sandbox-runtime bridges with
 * socat; a Node bridge needs nothing the machine may lack.)
 *
 * Fail closed at every step: the bridge cannot listen → the command is not
 * run (exit 126, said on stderr); the proxy is down → each connection to the
 * port is closed at once; there is no other way out (`--unshare-net`: the
 * sandbox's loopback is its own, not the host's).
 *
 * The bridge has no rights the command lacks: it runs in the same sandbox,
 * as the same user, and the command could kill or replace it — which only
 * loses the command its own network.
 */

/** Where the proxy's socket appears inside the sandbox (under the sandbox's private /tmp). */
const SANDBOX_PROXY_DIR = '/tmp/.editwarden-net';
export const SANDBOX_PROXY_SOCKET = `${SANDBOX_PROXY_DIR}/proxy.sock`;
/** The bridge's port on the sandbox's own loopback (the namespace is private, so any fixed port is free). */
const SANDBOX_PROXY_PORT = 3128;
/** The bridge could not start: the command did not run (126: "found but could not be run", as a shell says). */
const BRIDGE_FAILED_EXIT = 126;

/**
 * The bridge, as the source `node -e` runs (CommonJS, no file needed inside the sandbox).
 * argv: -- <socket> <port> <program> [args…]
 */
const BRIDGE_SOURCE = `'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socket, port, file, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const proxy = net.connect({ path: socket });
  const end = () => { client.destroy(); proxy.destroy(); };
  client.on('error', end); proxy.on('error', end);
  client.on('close', end); proxy.on('close', end);
  client.pipe(proxy); proxy.pipe(client);
});
server.on('error', (error) => {
  process.stderr.write('editwarden: the network bridge could not start (' + error.message + '); the command did not run.\\n');
  process.exit(${BRIDGE_FAILED_EXIT});
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(file, args, { stdio: 'inherit' });
  const forward = (signal) => { try { child.kill(signal); } catch {} };
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, forward);
  child.on('error', (error) => {
    process.stderr.write(file + ': ' + error.message + '\\n');
    process.exit(error.code === 'ENOENT' ? 127 : ${BRIDGE_FAILED_EXIT});
  });
  child.on('exit', (code, signal) => {
    server.close();
    if (signal) {
      for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
});
`;

/** `command` (an argv) run behind the bridge by `node` (editwarden's own Node, visible inside the sandbox). */
export function bridgedCommand(command: readonly string[], node: string = process.execPath): string[] {
  return [node, '-e', BRIDGE_SOURCE, '--', SANDBOX_PROXY_SOCKET, String(SANDBOX_PROXY_PORT), ...command];
}

/**
 * The environment that sends a command's tools through the bridge: the
 * upper- and lower-case spellings (curl reads only `http_proxy` for http://,
 * npm, pip, git, cargo, Go read the others), npm's own names, and Node's
 * opt-in for its built-in fetch. NO_PROXY keeps the sandbox's own loopback
 * direct (a test server a command starts inside the sandbox).
 */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    npm_config_noproxy: noProxy,
    NODE_USE_ENV_PROXY: '1',
  };
}
