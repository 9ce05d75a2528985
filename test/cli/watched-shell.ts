/**
 * The guarded shell as the warm server runs it for one project: its per-project state (hook-projects.ts) with the
 * watched tree, and a shell that runs a command through it, the way the server's route does. Ended with the test.
 */
import fs from 'node:fs';
import { afterEach } from 'vitest';
import { ProjectState } from '../../src/cli/hook-projects.js';
import { runGuardedShell, type ShellIo } from '../../src/integrations/shell.js';

const states: ProjectState[] = [];
afterEach(() => {
  for (const s of states.splice(0)) s.dispose();
});

/** The warm server's state for the project at `root`, disposed of when the test ends. */
export function warmState(root: string): ProjectState {
  const state = new ProjectState(root);
  states.push(state);
  return state;
}

/** The project's warm state, a shell through it, what it said on stderr, and its watched tree after a first command. */
export async function watchedShell(root: string) {
  const state = warmState(root);
  const said: string[] = [];
  const io: ShellIo = {
    stdout: () => undefined,
    stderr: (chunk) => said.push(chunk.toString()),
    warm: { nestedSearch: (realRoot) => state.nestedSearch(realRoot), tree: (realRoot) => state.tree(realRoot) },
  };
  const shell = (command: string) => runGuardedShell({ root, cwd: root, command, client: 'claude', tool: 'Bash', session: null }, io);
  const first = await shell('true');
  if (first !== 0) throw new Error(`the first guarded command exited ${first}: ${said.join('')}`);
  const tree = state.tree(fs.realpathSync(root));
  if (tree === null) throw new Error('a watched tree is expected (EDITWARDEN_WATCH is not off)');
  return { state, shell, said, tree };
}
