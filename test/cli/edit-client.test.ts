/**
 * Which `editwarden edit` calls the thin client may hand to the warm server
 * (src/cli/edit-client.ts `servable`): only those whose every name means the
 * same in the server's process — never a path into /proc or /dev (named,
 * as a `--flag=value`, or through a link), never help, never stdin read from
 * a terminal. fast-check over argument lists; real links in a temp folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { servable } from '../../src/cli/edit-client.js';

const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-edit-client-')));
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

function deepDir(dir: string): string {
  return path.join(dir, 'deep');
}

/** Plain words: no slash (nothing resolves out of the temp folder), never a help flag, never a lone `-`. */
const word = fc.stringMatching(/^[A-Za-z0-9_. ]{1,12}$/);
const plainArgs = fc
  .array(
    fc.oneof(
      word,
      word.map((w) => `--${w.replace(/[ .]/g, '')}`),
      word.map((w) => `--x=${w}`),
    ),
    { maxLength: 8 },
  )
  .map((args) => args.filter((a) => !/^-[^-]*h/.test(a)));

/** A name of this process's own: /proc/self/…, /dev/stdin, /dev/fd/N, and the like. */
const ownName = fc.tuple(fc.constantFrom('/proc/self/fd/0', '/proc/self/environ', '/dev/stdin', '/dev/fd/0', '/dev/null', '/proc', '/dev', '/proc/1/root/x'), fc.constantFrom('', '/', '/x/../0'));

describe('the calls a warm server may run for the thin edit client', () => {
  it('plain arguments are served', () => {
    fc.assert(fc.property(plainArgs, fc.boolean(), (args, terminal) => servable(args, cwd, terminal)));
  });

  it('never an argument that names this process (/proc, /dev), alone or as a --flag=value, anywhere in the call', () => {
    fc.assert(
      fc.property(plainArgs, ownName, fc.boolean(), fc.nat(), (args, [own, tail], asValue, at) => {
        const arg = asValue ? `--old-file=${own}${tail}` : `${own}${tail}`;
        const call = [...args];
        call.splice(at % (call.length + 1), 0, arg);
        return !servable(call, cwd, false);
      }),
    );
  });

  it('never a link (or a path through a link) into /proc or /dev', () => {
    // A folder of its own: the plain words above never name these.
    const dir = path.join(cwd, 'links');
    fs.mkdirSync(path.join(dir, 'deep'), { recursive: true });
    fs.symlinkSync('/proc/self/fd/0', path.join(dir, 'stdin-link'));
    fs.symlinkSync('/dev', path.join(dir, 'devices'));
    fs.symlinkSync('/proc/self', path.join(dir, 'me'));
    fs.symlinkSync('/proc/self/fd', path.join(deepDir(dir), 'fds'));
    // `me/fd/987`: no such descriptor here, maybe one in the server; `deep/fds/../environ`: `..` after a link is its target's parent.
    for (const arg of ['stdin-link', './stdin-link', '--new-file=stdin-link', 'devices/null', 'deep/../devices/stdin', `${dir}/stdin-link`, 'me/fd/987', '--old-file=me/fd/987/x', 'deep/fds/../environ']) {
      expect(servable(['a.txt', '--new-file', arg], dir, false), arg).toBe(false);
    }
    // A relative path that climbs to /dev from the folder.
    expect(servable(['--old-file', path.relative(dir, '/dev/stdin')], dir, false)).toBe(false);
    // The control: a plain file of the folder is served.
    fs.writeFileSync(path.join(dir, 'old.txt'), 'x');
    expect(servable(['a.txt', '--old-file', 'old.txt'], dir, false)).toBe(true);
  });

  it('never help (its width and colours are this terminal’s)', () => {
    fc.assert(
      fc.property(plainArgs, fc.constantFrom('--help', '-h', '-xh'), fc.nat(), (args, help, at) => {
        const call = [...args];
        call.splice(at % (call.length + 1), 0, help);
        return !servable(call, cwd, false);
      }),
    );
  });

  it('stdin (`--request -`) only when it is not a terminal: a terminal is read by the process it belongs to', () => {
    for (const call of [
      ['--request', '-'],
      ['--request=-', '--json'],
    ]) {
      expect(servable(call, cwd, true)).toBe(false);
      expect(servable(call, cwd, false)).toBe(true);
    }
  });
});
