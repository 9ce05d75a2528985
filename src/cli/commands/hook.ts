/**
 * `editwarden hook <client> <event> [--root DIR]`: the command a client's
 * hook runs (written by `editwarden init`). Reads the hook input on stdin,
 * answers on stdout/stderr with the exit code the client's protocol wants.
 */
import type { Command } from 'commander';
import { CLIENTS } from '../../integrations/index.js';
import { runHook } from '../../integrations/hook.js';
import { refusalText } from '../../integrations/client.js';
import { ErrorCode, ExitCode } from '../../errors.js';
import type { Io } from '../output.js';

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
    .action(async (name: string, event: string, flags: { root?: string }) => {
      const client = CLIENTS[name];
      if (!client) {
        // Exit 2 blocks in every client's protocol: an unknown client name must not let an edit through.
        io.stderr.write(`${refusalText({ code: ErrorCode.USAGE, message: `editwarden hook: unknown client ${JSON.stringify(name)}.`, hint: `Run \`editwarden init <client>\` again; clients: ${Object.keys(CLIENTS).join(', ')}.` })}\n`);
        setExit(ExitCode.CONSTRAINT);
        return;
      }
      const out = await runHook(client, event, await readStdin(io), { ...(flags.root ? { root: flags.root } : {}), env: io.env, cwd: process.cwd() });
      if (out.stdout) io.stdout.write(out.stdout.endsWith('\n') ? out.stdout : `${out.stdout}\n`);
      if (out.stderr) io.stderr.write(out.stderr.endsWith('\n') ? out.stderr : `${out.stderr}\n`);
      setExit(out.exitCode);
    });
}
