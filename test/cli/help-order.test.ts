/**
 * The top-level help is a newcomer's first page: what protects the agent
 * they use, undoes its work and shows what it did comes first; the commands
 * only `init`'s settings run (hooks) are left out, and still work.
 */
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COMMANDS, HELP_FIRST } from '../../src/cli/main.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

function cli(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' } });
}

/** The command names of the help's Commands section, in order. */
function listed(help: string): string[] {
  const section = help.slice(help.indexOf('Commands:'));
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1] as string);
}

describe('editwarden --help', () => {
  it('lists init, undo, redo, doctor, log and report first, in that order', () => {
    for (const name of HELP_FIRST) expect(Object.keys(COMMANDS)).toContain(name);
    const r = cli(['--help']);
    expect(r.status).toBe(0);
    expect(listed(r.stdout).slice(0, HELP_FIRST.length)).toEqual([...HELP_FIRST]);
  });

  it('leaves out the internal commands, which still run and have their own help', () => {
    const hidden = Object.entries(COMMANDS)
      .filter(([, entry]) => entry.hidden)
      .map(([name]) => name);
    expect(hidden).toEqual(expect.arrayContaining(['hook', 'shell']));
    const names = listed(cli(['--help']).stdout);
    for (const name of hidden) {
      expect(names).not.toContain(name);
      const own = cli([name, '--help']);
      expect(own.status).toBe(0);
      expect(own.stdout).toContain(`Usage: editwarden ${name}`);
    }
    // Everything else is listed.
    const visible = Object.keys(COMMANDS).filter((name) => !hidden.includes(name));
    expect([...names].filter((n) => n !== 'help').sort()).toEqual(visible.sort());
  });
});
