import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import ignore from 'ignore';
import { walkFiles } from '../../src/workspace/file-walk.js';

let root: string;
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-walk-')));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function files(dir: string): string[] {
  const out: string[] = [];
  walkFiles(dir, (rel, type) => {
    if (type === 'file') out.push(rel);
  });
  return out;
}

function makeTree(dir: string, paths: readonly string[], gitignore: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const p of paths) {
    // A name can be both a file and a folder in the generated list; the first one wins.
    try {
      fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      fs.writeFileSync(path.join(dir, p), 'x');
    } catch {
      // A file where a folder was asked for, or the reverse.
    }
  }
  fs.writeFileSync(path.join(dir, '.gitignore'), gitignore);
}

describe('the walk leaves out exactly what the .gitignore rules ignore (property)', () => {
  it('over random rules (globs, negations, folders only, anchored, classes, case) and random trees', () => {
    const segment = fc.constantFrom('a', 'b', 'A', 'lib', 'x.log', 'keep.log', 'y.ts', 'Build', 'build', '.env', 'n[1]', 'é.txt');
    const rule = fc.constantFrom('*.log', '!keep.log', 'build/', 'build', '/a', 'a/b', '**/y.ts', 'lib/**', '*.TS', '.env', '!*.ts', 'x.?og', '[ab]', 'n\\[1\\]', '# comment', '', '   ', 'b/*', '!b/', '*', '!lib');
    fc.assert(
      fc.property(fc.array(fc.array(segment, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }), fc.array(rule, { maxLength: 6 }), (paths, rules) => {
        const dir = path.join(root, 't');
        const text = rules.join('\n');
        makeTree(
          dir,
          paths.map((p) => p.join('/')),
          text,
        );
        const ig = ignore().add(text);
        const all: string[] = [];
        const collect = (rel: string): void => {
          for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
            const p = rel === '' ? d.name : `${rel}/${d.name}`;
            if (d.isDirectory()) collect(p);
            else all.push(p);
          }
        };
        collect('');
        // One .gitignore at the root: `ignores` (which checks the parents too) is git's answer.
        const expected = all.filter((p) => !ig.ignores(p)).sort();
        expect(files(dir).sort()).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the walk builds paths without path.join', () => {
  it('gives the same absolute paths for a root with and without a trailing separator', () => {
    const dir = path.join(root, 'abs');
    makeTree(dir, ['s/f.txt'], '');
    const seen: string[] = [];
    for (const r of [dir, `${dir}${path.sep}`])
      walkFiles(r, (rel, type, abs) => {
        if (type === 'file') seen.push(`${rel}=${fs.readFileSync(abs, 'utf8')}:${abs === path.join(dir, rel)}`);
      });
    expect(seen).toEqual(['.gitignore=:true', 's/f.txt=x:true', '.gitignore=:true', 's/f.txt=x:true']);
  });
});
