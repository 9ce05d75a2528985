/**
 * `editwarden hook <client> <event> [--root DIR]`: the command a client's
 * hook runs (written by `editwarden init`). Reads the hook input on stdin,
 * answers on stdout/stderr with the exit code the client's protocol wants.
 */
import { type Command, Option } from 'commander';
import { CLIENTS } from '../../integrations/index.js';
import { runHook } from '../../integrations/hook.js';
import { refusalText, type HookOutput } from '../../integrations/client.js';
import { ErrorCode, ExitCode } from '../../errors.js';
import type { Io } from '../output.js';
import { defined } from '../../defined.js';

/** Below Claude Code's and Gemini CLI's 60 s hook timeout that init writes. */
const HOOK_DEADLINE_MS = 50_000;

async function readStdin(io: Io): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export function registerHook(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('hook')
    .description("Run a client hook (called by the settings `editwarden init` writes): vets the client's own edit on stdin.")
    .argument('<client>', Object.keys(CLIENTS).join(' | '))
    .argument('<event>', 'the hook event, e.g. pre-tool-use')
    .option('--root <dir>', "project folder (default: the client's project folder)")
    .option('--config <file>', 'the config file of the project, relative to its root (written by `editwarden init --config`): loaded, and protected like .editwarden.yml')
    .option('--deadline <ms>', "answer with a refusal if the call is not decided by then (below the client's own hook timeout)", String(HOOK_DEADLINE_MS))
    // The thin client (hook-client.ts) that decides here after trying a server: the time it already spent.
    .addOption(new Option('--waited <ms>').hideHelp())
    .action(async (name: string, event: string, flags: { root?: string; config?: string; deadline: string; waited?: string }) => {
      const client = CLIENTS[name];
      if (!client) {
        // Exit 2 blocks in every client's protocol: an unknown client name must not let an edit through.
        io.stderr.write(`${refusalText({ code: ErrorCode.USAGE, message: `editwarden hook: unknown client ${JSON.stringify(name)}.`, hint: `Run \`editwarden init <client>\` again; clients: ${Object.keys(CLIENTS).join(', ')}.` })}\n`);
        setExit(ExitCode.CONSTRAINT);
        return;
      }
      const write = (out: HookOutput): void => {
        if (out.stdout) io.stdout.write(out.stdout.endsWith('\n') ? out.stdout : `${out.stdout}\n`);
        if (out.stderr) io.stderr.write(out.stderr.endsWith('\n') ? out.stderr : `${out.stderr}\n`);
      };
      // A client that times a hook out runs the tool anyway: decide "refused" ourselves before its timeout does.
      const deadline = Number(flags.deadline) > 0 ? Number(flags.deadline) : HOOK_DEADLINE_MS;
      const waited = Math.max(0, Number(flags.waited) || 0);
      const watchdog = setTimeout(
        () => {
          const out = client.deny({
            code: ErrorCode.GUARD_UNAVAILABLE,
            message: `editwarden could not decide this call within ${Math.round(deadline / 1000)} s, so it is blocked.`,
            hint: 'Try again; if it keeps happening the machine is overloaded or the project is very large (see editwarden doctor).',
          });
          write(out);
          process.exit(out.exitCode);
        },
        Math.max(1, deadline - waited),
      );
      watchdog.unref();
      let out: HookOutput;
      try {
        out = await runHook(client, event, await readStdin(io), { ...defined({ root: flags.root || undefined, configFile: flags.config || undefined }), env: io.env, cwd: process.cwd() });
      } catch (error) {
        // A crash is a refusal, in the client's own protocol (a crash exit code would be a non-blocking error to the client).
        out = client.deny({
          code: ErrorCode.GUARD_UNAVAILABLE,
          message: `editwarden failed while vetting this call: ${error instanceof Error ? error.message : String(error)}.`,
          hint: 'Try again; if it keeps failing, run editwarden doctor.',
        });
      } finally {
        clearTimeout(watchdog);
      }
      write(out);
      setExit(out.exitCode);
    });
}
