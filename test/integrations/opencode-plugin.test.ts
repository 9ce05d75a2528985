/**
 * The plugin `init opencode` writes (.opencode/plugins/editwarden.js), loaded
 * as opencode loads it (an ES module's exported factory) and called as
 * opencode calls its hooks, with a stand-in `editwarden` on PATH: it acts
 * on exactly one JSON answer and throws — blocking the call, the message
 * being what the model reads — on anything else: no editwarden at all, one
 * that fails, one whose output is no answer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { opencodePlugin } from '../../src/integrations/opencode-plugin.js';
import { cleanup, tempDir } from './helpers.js';

type Hooks = {
  'tool.execute.before': (input: Record<string, unknown>, output: { args: Record<string, unknown> }) => Promise<void>;
  'tool.execute.after': (input: Record<string, unknown>, output: Record<string, unknown>) => Promise<void>;
};

let root: string;
let bin: string;
let hooks: Hooks;
const saved = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };

beforeAll(async () => {
  root = tempDir('ew-ocplugin-');
  bin = tempDir('ew-ocbin-');
  const file = path.join(root, '.opencode', 'plugins', 'editwarden.js');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, opencodePlugin());
  const plugin = (await import(pathToFileURL(file).href)) as { Editwarden: (ctx: { directory: string; worktree: string }) => Promise<Hooks> };
  hooks = await plugin.Editwarden({ directory: root, worktree: root });
  // No launcher of a project-local install: only the editwarden on PATH can answer.
  const home = tempDir('ew-ochome-');
  process.env.HOME = home;
  process.env.XDG_DATA_HOME = path.join(home, '.local', 'share');
});
afterEach(() => {
  process.env.PATH = saved.PATH;
  fs.rmSync(path.join(bin, 'editwarden'), { force: true });
});
afterAll(() => {
  Object.assign(process.env, saved);
  cleanup();
});

/** A stand-in editwarden on PATH that reads the call into `call.json` and runs `body`. */
function editwardenThat(body: string): void {
  fs.writeFileSync(path.join(bin, 'editwarden'), `#!/bin/sh\ncat > '${path.join(bin, 'call.json')}'\n${body}\n`, { mode: 0o755 });
  process.env.PATH = `${bin}:/usr/bin:/bin`;
}

const input = { tool: 'bash', sessionID: 'ses_1', callID: 'call_1' };

describe("opencode's editwarden plugin", () => {
  it('sends the call in the common shape and acts on allow, deny (thrown, the reason is what the model reads) and rewrite (only the command changes)', async () => {
    editwardenThat(`echo '{"decision":"allow"}'`);
    const args = { command: 'ls', workdir: 'sub' };
    await hooks['tool.execute.before'](input, { args });
    expect(args).toEqual({ command: 'ls', workdir: 'sub' });
    expect(JSON.parse(fs.readFileSync(path.join(bin, 'call.json'), 'utf8'))).toEqual({ session_id: 'ses_1', tool_use_id: 'call_1', tool_name: 'bash', tool_input: args, cwd: root });

    editwardenThat(`echo '{"decision":"deny","reason":"editwarden refused this edit: E_DENIED_PATH: no"}'`);
    await expect(hooks['tool.execute.before'](input, { args: { command: 'ls' } })).rejects.toThrow('E_DENIED_PATH: no');

    editwardenThat(`echo '{"decision":"rewrite","tool_input":{"command":"guarded ls","workdir":"elsewhere"}}'`);
    const rewritten = { command: 'ls', workdir: 'sub' };
    await hooks['tool.execute.before'](input, { args: rewritten });
    expect(rewritten).toEqual({ command: 'guarded ls', workdir: 'sub' });
  });

  it('throws when editwarden gives no answer: none installed, a failing one (exit 1, which other clients take as "run the tool"), output that is no answer, a rewrite without a command', async () => {
    process.env.PATH = '/usr/bin:/bin';
    await expect(hooks['tool.execute.before'](input, { args: { command: 'ls' } })).rejects.toThrow('E_GUARD_UNAVAILABLE: editwarden is not installed');
    editwardenThat('echo boom >&2; exit 1');
    await expect(hooks['tool.execute.before'](input, { args: { command: 'ls' } })).rejects.toThrow('E_GUARD_UNAVAILABLE');
    editwardenThat('echo not json');
    await expect(hooks['tool.execute.before'](input, { args: { command: 'ls' } })).rejects.toThrow('E_GUARD_UNAVAILABLE: editwarden gave no answer');
    editwardenThat(`echo '{"decision":"maybe"}'`);
    await expect(hooks['tool.execute.before'](input, { args: { command: 'ls' } })).rejects.toThrow('E_GUARD_UNAVAILABLE');
    editwardenThat(`echo '{"decision":"rewrite","tool_input":{}}'`);
    await expect(hooks['tool.execute.before'](input, { args: { command: 'ls' } })).rejects.toThrow('E_GUARD_UNAVAILABLE');
  });

  it('after the tool ran, a record that fails changes nothing (the call already happened)', async () => {
    editwardenThat('exit 1');
    await expect(hooks['tool.execute.after']({ ...input, tool: 'write', args: { filePath: 'a', content: 'x' } }, {})).resolves.toBeUndefined();
  });
});
