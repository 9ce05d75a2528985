/**
 * A client session's hook Run: the ToolRunner a hooked client's call goes
 * through (the guarded shell's command is its `execute_command`), as every
 * tool call of editwarden's own runs goes through one. Its profile is the
 * interactive one (a person watches, undo covers it: only the caps a layer
 * of the config set, runs/profile.ts); its ledger is the session's
 * (runs/ledger.ts, in the state folder: each hook call and each shell
 * command is its own process, so the count lives on disk), or — when the
 * client sent no session id — one in memory, for this call alone. Its
 * transaction is not the runner's to open: a session is no run that
 * settles, and nothing of it is rolled back by the runner.
 */
import type { Project } from '../host/project.js';
import type { EventRoute } from '../runs/event-types.js';
import type { SessionKey } from '../runs/ledger.js';
import { runProfile } from '../runs/profile.js';
import { Run } from '../runs/run.js';
import type { AnyTool } from '../tools/types.js';
import { ToolRunner, type CallRecord } from '../tools/runner.js';
import { defined } from '../defined.js';

export interface HookRunCalls {
  /** The event log's route of the session's calls. */
  route: EventRoute;
  client: string;
  /** The client's session (its ledger in the state folder); null: it sent no id, the call counts alone. */
  session: SessionKey | null;
  /** The record of each call, written by the runner's record step; absent: the hook records it itself (a native edit's refusal in hook.ts, its landing at PostToolUse). */
  record?: (record: CallRecord, args: unknown) => void;
}

/** The calls of `client`'s session on the hook's route (the hook records them itself). */
export function hookCalls(client: string, session: SessionKey | null): HookRunCalls {
  return { route: { via: 'hook', client, ...defined({ session: session?.session }) }, client, session };
}

/** The runner of one hooked call of a client session in `project`, offering `tools`; `calls` null: it only confirms a call made before (a post hook). */
export function hookRunner(project: Project, calls: HookRunCalls | null, tools: readonly AnyTool[]): ToolRunner {
  const profile = runProfile('interactive', { config: project.config, layers: project.layers });
  return ToolRunner.start({
    project,
    run: new Run({ profile, opener: 'mode', ...(calls ? { session: calls.session, client: { client: calls.client, route: calls.route } } : {}) }),
    toolset: { config: project.config, tools },
    artifacts: false,
    // Each call's record is the client's (the hook's event), written by the runner's record step.
    events: calls?.record ? { call: calls.record } : false,
  });
}
