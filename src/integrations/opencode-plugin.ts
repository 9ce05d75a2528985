/**
 * The text of `.opencode/plugins/editwarden.js`, the thin bridge between
 * opencode's plugin hooks and `editwarden hook opencode <event>`. It is kept
 * tiny on purpose: it decides nothing. It runs the committed hook command
 * (client.ts `guardedHookCommand`: editwarden found outside the project, or
 * the person's launcher of a recorded project-local install) in the project
 * folder, hands it the call as JSON, and acts on exactly one JSON answer.
 * Whatever else happens — no editwarden, a crash, a timeout, output that is
 * not the answer — it throws, and opencode blocks the call with the thrown
 * message as what the model reads (fail closed).
 *
 * The root is opencode's `worktree` (the repository the session runs in)
 * when it has one, else its `directory`. It imports nothing opencode would
 * have to install (`@opencode-ai/plugin` is a types package).
 */
import { guardedHookCommand, type InitSetup } from './client.js';

export const OPENCODE_PLUGIN_FILE = '.opencode/plugins/editwarden.js';
const MARK = '// editwarden: the guard of this project';

export function isOurPlugin(text: string): boolean {
  return text.startsWith(MARK);
}

export function opencodePlugin(setup?: InitSetup): string {
  const before = JSON.stringify(guardedHookCommand('opencode', 'tool-before', '.', setup));
  const after = JSON.stringify(guardedHookCommand('opencode', 'tool-after', '.', setup));
  return `${MARK} (written by \`editwarden init opencode\`; \`editwarden init opencode --remove\` takes it out).
// Every tool call is sent to \`editwarden hook opencode\`; a call it does not answer is blocked.
import { spawn } from 'node:child_process';

const HOOK = { before: ${before}, after: ${after} };

function ask(event, root, call) {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', HOOK[event]], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 65000);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', (e) => (err += String(e)));
    child.on('close', (code) => {
      clearTimeout(timer);
      let answer = null;
      try {
        answer = code === 0 ? JSON.parse(out) : null;
      } catch {}
      resolve(answer && typeof answer.decision === 'string' ? answer : { decision: 'fail', reason: err.trim() || 'editwarden refused this tool call: E_GUARD_UNAVAILABLE: editwarden gave no answer (exit ' + code + '), so the call is blocked.' });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(call));
  });
}

export const Editwarden = async ({ directory, worktree }) => {
  const root = worktree && worktree !== '/' ? worktree : directory;
  const call = (input, args) => ({ session_id: input.sessionID, tool_use_id: input.callID, tool_name: input.tool, tool_input: args, cwd: root });
  return {
    'tool.execute.before': async (input, output) => {
      const answer = await ask('before', root, call(input, output.args));
      if (answer.decision === 'allow') return;
      if (answer.decision === 'rewrite' && answer.tool_input && typeof answer.tool_input.command === 'string') {
        output.args.command = answer.tool_input.command;
        return;
      }
      throw new Error(answer.reason || 'editwarden refused this tool call: E_GUARD_UNAVAILABLE: no decision, so the call is blocked.');
    },
    // After the tool ran: recorded (and its checkpoint made an undo step); a failure here changes nothing the model did.
    'tool.execute.after': async (input) => {
      await ask('after', root, call(input, input.args));
    },
  };
};
`;
}
