/**
 * The filtering proxy for one command: started when the command's sandbox
 * policy lists hosts (`sandbox.network: [..]`), running exactly as long as
 * the command, its refusals tallied into the command's result and — when
 * the caller says where — written to the root's event log as `network`
 * events. Every sandboxed route goes through here (runCommand: verification,
 * execute_command, the scouts; the guarded shell, whose command may run in
 * the thin client's process while the proxy runs in this one), so every
 * route gets the same network.
 *
 * Fail closed: a proxy that cannot start leaves the command without any
 * network (bubblewrap still unshares it), never with the host's.
 *
 * The proxy's resolver override (`EDITWARDEN_TEST_HOSTS`, tests only) is
 * read from editwarden's own environment here, never from the command's
 * (sandbox/network/test-hosts.ts says why that is safe).
 */
import type { NetworkProxy } from '../sandbox/network/proxy.js';
import { RefusalTally } from '../sandbox/network/refusals.js';
import { testHostsFrom } from '../sandbox/network/test-hosts.js';
import type { CommandSandbox } from '../sandbox/spawn.js';
import type { EventRoute } from '../runs/event-types.js';
import { recordNetworkRefusals } from '../runs/network-events.js';
import type { CommandResult } from './spawn-run.js';

/** Where a command's refused connections are recorded: the root's state folder, and who ran it. */
export interface NetworkRecord {
  stateDir: string;
  route: EventRoute;
  tool: string;
}

/**
 * Runs `run` with the proxy its sandbox needs (its socket passed in; null: none needed, or none could be
 * started — then the command has no network), and adds what the proxy refused to the result.
 */
export async function withCommandNetwork(sandbox: CommandSandbox, how: { display: string; record?: NetworkRecord }, run: (proxySocket: string | null) => Promise<CommandResult>): Promise<CommandResult> {
  // No policy at all is the spawn's to refuse (sandbox/spawn.ts), with its own message.
  const access = typeof sandbox === 'object' && sandbox !== null && sandbox.enabled ? sandbox.networkAccess : null;
  if (access === null || access.mode !== 'hosts') return run(null);
  const tally = new RefusalTally();
  let proxy: NetworkProxy | null = null;
  try {
    // Loaded for a command that has hosts to reach: the proxy brings node:http, net and dns, which every other command
    // (and every process that only might run one: the MCP server, exec, run) does without (test/cli/lazy-commands.test.ts).
    const { startNetworkProxy } = await import('../sandbox/network/proxy.js');
    proxy = await startNetworkProxy({ allow: access.hosts, onRefused: (r) => tally.add(r), testHosts: testHostsFrom(process.env) });
  } catch {
    // No proxy: no network (the sandbox has none of its own).
  }
  let result: CommandResult;
  try {
    result = await run(proxy?.socketPath ?? null);
  } finally {
    await proxy?.close();
  }
  if (tally.total === 0) return result;
  const refused = { refused: tally.refused(), others: tally.others() };
  if (how.record) recordNetworkRefusals(how.record.stateDir, refused, { route: how.record.route, tool: how.record.tool, command: how.display });
  return { ...result, network_refused: refused };
}
