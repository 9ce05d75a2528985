/**
 * The protected set's look for links, kept by a long-lived process between
 * openings (src/workspace/policy-links.ts): whatever is done to the project
 * between two openings — a link planted in a protected folder, a member
 * swapped for a link, a folder made or removed, a member file made as a
 * link to another file — the Policy made with the kept look has exactly the
 * members of a Policy made afresh. Real files; the racy window shortened
 * (and waited out) so that the kept look is really used.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Policy } from '../../src/workspace/policy.js';
import { KeptLinkLooks } from '../../src/workspace/policy-links.js';
import { Resolver } from '../../src/workspace/resolver.js';
import { tempDir } from '../temp-dirs.js';

/** Past one timestamp tick of any file system clock (1–10 ms): a folder changed before this is settled for RACY. */
const RACY = 15;
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, RACY + 5));

/** Kept looks that count how often one was believed: the property must not hold only because none ever was. */
class CountedLooks extends KeptLinkLooks {
  believed = 0;
  override stillNone(root: string, members: string): boolean {
    const still = super.stillNone(root, members);
    if (still) this.believed++;
    return still;
  }
}

const open = (root: string, keptLinks?: KeptLinkLooks): Policy => new Policy(root, new Resolver(root), keptLinks === undefined ? {} : { keptLinks });

function put(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

function link(root: string, rel: string, target: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.rmSync(path.join(root, rel), { recursive: true, force: true });
  fs.symlinkSync(target, path.join(root, rel));
}

/** What a person, an agent's command or an installer does to a project between two calls. */
const OPS: Record<string, (root: string) => void> = {
  'a link in a protected folder': (r) => link(r, '.claude/settings.json', '../cfg/claude.json'),
  'a link deep in a protected folder': (r) => link(r, '.vscode/a/b/tasks.json', '../../../cfg/tasks.json'),
  'a protected folder swapped for a link': (r) => link(r, '.claude', 'cfg'),
  'a member file made a link': (r) => link(r, '.mcp.json', 'cfg/mcp.json'),
  'the config made a link': (r) => link(r, '.editwarden.yml', 'cfg/editwarden.yml'),
  'a member under a folder link': (r) => link(r, '.github', 'cfg'),
  'a link into node_modules/.bin': (r) => link(r, 'node_modules/.bin/editwarden', '../../cfg/bin.js'),
  // Listed through `.claude -> cfg` (a folder member that is a link is listed where it leads): its target protected too.
  'a link in the folder a member links to': (r) => link(r, 'cfg/inner.json', '../other/inner.json'),
  'a protected folder made, with a file': (r) => put(r, '.claude/settings.json', '{}\n'),
  'a folder below a protected one': (r) => put(r, '.vscode/a/b/c.json', '{}\n'),
  'a protected folder removed': (r) => fs.rmSync(path.join(r, '.claude'), { recursive: true, force: true }),
  'every link removed': (r) => {
    for (const rel of ['.claude', '.claude/settings.json', '.vscode/a/b/tasks.json', '.mcp.json', '.editwarden.yml', '.github', 'node_modules/.bin/editwarden', 'cfg/inner.json']) {
      const abs = path.join(r, rel);
      if (fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) fs.rmSync(abs);
    }
  },
  'a project file written': (r) => put(r, 'src/app.ts', `export const at = ${Date.now()};\n`),
  'a member file written': (r) => put(r, '.envrc', 'export A=1\n'),
};

describe('a long-lived process keeps the look for links only while the disk is as it saw it', () => {
  it('the members equal a fresh Policy after any sequence of changes between openings (fast-check, real files)', async () => {
    let believed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...Object.keys(OPS)), { minLength: 1, maxLength: 6 }), async (ops) => {
        const root = tempDir('ew-policy-links-');
        put(root, 'cfg/claude.json', '{}\n');
        put(root, 'cfg/mcp.json', '{}\n');
        put(root, 'a.txt', 'a\n');
        const kept = new CountedLooks({ racyMs: RACY });
        await settle();
        expect(open(root, kept).members).toEqual(open(root).members);
        for (const op of ops) {
          OPS[op]?.(root);
          await settle();
          // Twice: the first may look again (the disk changed), the second is the kept look believed.
          expect(open(root, kept).members).toEqual(open(root).members);
          expect(open(root, kept).members).toEqual(open(root).members);
        }
        fs.rmSync(root, { recursive: true, force: true });
        believed += kept.believed;
      }),
      { numRuns: 25 },
    );
    expect(believed).toBeGreaterThan(0);
  }, 120_000);

  it('a link planted in a protected folder after a kept look protects its target on the next opening', async () => {
    const root = tempDir('ew-policy-links-');
    put(root, 'cfg/claude.json', '{}\n');
    put(root, '.claude/other.json', '{}\n');
    const kept = new CountedLooks({ racyMs: RACY });
    await settle();
    expect(open(root, kept).protectedBy('cfg/claude.json')).toBeNull();
    expect(open(root, kept).protectedBy('cfg/claude.json')).toBeNull();
    expect(kept.believed).toBe(1);
    fs.symlinkSync('../cfg/claude.json', path.join(root, '.claude', 'settings.json'));
    expect(open(root, kept).protectedBy('cfg/claude.json')?.reason).toContain('the real target of .claude/settings.json');
  });

  it('a protected folder that is a link is listed where it leads, with or without a kept look (its links protect their targets)', async () => {
    const root = tempDir('ew-policy-links-');
    put(root, 'cfg/claude.json', '{}\n');
    link(root, 'cfg/inner.json', '../other/inner.json');
    link(root, '.claude', 'cfg');
    const fresh = open(root).protectedBy('other/inner.json');
    expect(fresh?.reason).toContain('the real target of .claude/inner.json');
    expect(open(root, new CountedLooks({ racyMs: RACY })).protectedBy('other/inner.json')).toEqual(fresh);
  });

  it('keeps no look that saw a link, nor a folder changed within the racy window', async () => {
    const root = tempDir('ew-policy-links-');
    put(root, 'cfg/claude.json', '{}\n');
    fs.mkdirSync(path.join(root, '.claude'));
    const kept = new CountedLooks({ racyMs: 60_000 });
    open(root, kept);
    open(root, kept);
    // `.claude` changed less than a minute ago: its change time could not show a change in the same tick.
    expect(kept.believed).toBe(0);
    const linked = new CountedLooks({ racyMs: RACY });
    fs.symlinkSync('../cfg/claude.json', path.join(root, '.claude', 'settings.json'));
    await settle();
    open(root, linked);
    expect(open(root, linked).protectedBy('cfg/claude.json')).not.toBeNull();
    expect(linked.believed).toBe(0);
  });
});
