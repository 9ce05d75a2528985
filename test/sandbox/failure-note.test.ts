/**
 * The note after a failed sandboxed command names the rule its output shows
 * it ran into — a read-only path, or no network — and says nothing
 * otherwise; a `git commit` is no longer blamed on the network. Pure cases,
 * a property, and the real guarded shell (`editwarden shell`, what a
 * client's Bash runs as) with real git.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sandboxFailureNote } from '../../src/sandbox/failure-note.js';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve('bin/editwarden');

describe('the note names what the output shows', () => {
  it('a write to a read-only path names the protected paths and that git work is allowed, never the network', () => {
    for (const line of [
      'error: could not write config file .git/config: Device or resource busy',
      'sh: 1: cannot create .git/hooks/pre-commit: Read-only file system',
      "ln: failed to create hard link 'x' => '.git/config': Invalid cross-device link",
    ]) {
      const note = sandboxFailureNote(`some output\n${line}\n`, 'off');
      expect(note).toContain('read-only');
      expect(note).toContain(line.trim());
      expect(note).toContain('commit');
      expect(note).not.toContain('network');
    }
  });

  it('a failed name lookup without network gets the network note; with a host list, the proxy note; with network on, none', () => {
    const out = 'fatal: unable to access https://example.test/: Could not resolve host: example.test\n';
    expect(sandboxFailureNote(out, 'off')).toContain('without network access');
    expect(sandboxFailureNote(out, 'hosts')).toContain("through editwarden's proxy");
    expect(sandboxFailureNote(out, 'on')).toBeNull();
  });

  it('output that shows neither gets no note at all', () => {
    const quiet = fc.string().filter((s) => !/read-only|busy|cross-device|EROFS|EBUSY|EXDEV|resolve|getaddrinfo|ENOTFOUND|EAI_AGAIN|unreachable|service not known|servname|establish|refused/i.test(s));
    fc.assert(
      fc.property(quiet, fc.constantFrom('off' as const, 'on' as const, 'hosts' as const), (out, network) => {
        expect(sandboxFailureNote(out, network)).toBeNull();
      }),
    );
  });
});

describe('the guarded shell with real git', () => {
  function repo(): string {
    const root = tempDir('ew-note-');
    for (const args of [
      ['init', '-q'],
      ['config', 'user.name', 'a'],
      ['config', 'user.email', 'a@a'],
    ])
      spawnSync('git', args, { cwd: root });
    fs.writeFileSync(path.join(root, 'a.txt'), 'a\n');
    return root;
  }
  const shell = (root: string, command: string) => spawnSync(process.execPath, [BIN, 'shell', '--client', 'claude', '--tool', 'Bash', '--root', root, '--', command], { cwd: root, encoding: 'utf8' });

  it('git add and commit succeed with no note; git config fails with the read-only note, not the network one', () => {
    const root = repo();
    const commit = shell(root, 'git add -A && git commit -qm x');
    expect(commit.status, commit.stderr).toBe(0);
    expect(commit.stderr).not.toContain('[editwarden] note');
    const config = shell(root, 'git config core.hooksPath /tmp/evil');
    expect(config.status).not.toBe(0);
    expect(config.stderr).toContain('keeps read-only');
    expect(config.stderr).not.toContain('network');
  });
});
