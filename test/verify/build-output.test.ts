/**
 * The build's whole output read back from its log, and the report's excerpt of it: the compiler's
 * error lines (the diagnostics parsers') before the tail, so an early error is never cut off.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilationExcerpt, readBuildOutput } from '../../src/verify/build-output.js';
import { tempDir } from '../temp-dirs.js';

const GCC = "main.cpp:2:10: error: 'missing_value' was not declared in this scope";

function runLog(text: string | Buffer): string {
  const root = tempDir('ew-build-output-');
  fs.mkdirSync(path.join(root, '.editwarden/runs/r1/verify/1'), { recursive: true });
  fs.writeFileSync(path.join(root, '.editwarden/runs/r1/verify/1/combined.log'), text);
  return root;
}

describe('readBuildOutput', () => {
  it('reads the whole log and names it', () => {
    const text = `${GCC}\n${Array.from({ length: 300 }, (_, i) => `step ${i + 1}`).join('\n')}\n`;
    const root = runLog(text);
    expect(readBuildOutput(root, '.editwarden/runs/r1/verify/1')).toEqual({ text, bytes: Buffer.byteLength(text), complete: true, file: '.editwarden/runs/r1/verify/1/combined.log' });
  });

  it('over the bound: its head and its tail, with a note naming the file and what was left out', () => {
    const text = `${GCC}\n${'x'.repeat(5000)}\nthe last line\n`;
    const out = readBuildOutput(runLog(text), '.editwarden/runs/r1/verify/1', 1000);
    expect(out?.complete).toBe(false);
    expect(out?.text.startsWith(GCC)).toBe(true);
    expect(out?.text.endsWith('the last line\n')).toBe(true);
    expect(out?.text).toContain(`[… ${Buffer.byteLength(text) - 1000} bytes of the build output left out here; the whole output is in .editwarden/runs/r1/verify/1/combined.log …]`);
  });

  it('no log, or a link where the log should be: null (never follows it)', () => {
    const root = tempDir('ew-build-output-');
    expect(readBuildOutput(root, '.editwarden/runs/r1/verify/1')).toBeNull();
    fs.mkdirSync(path.join(root, '.editwarden/runs/r1/verify/1'), { recursive: true });
    fs.writeFileSync(path.join(root, 'secret.txt'), 'secret\n');
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(root, '.editwarden/runs/r1/verify/1/combined.log'));
    expect(readBuildOutput(root, '.editwarden/runs/r1/verify/1')).toBeNull();
  });
});

describe('compilationExcerpt', () => {
  it('a g++ error followed by 300 lines: the error line first, then the last 40 lines', () => {
    const lines = ['main.cpp: In function ‘int main()’:', GCC, '    2 |   return missing_value;', '      |          ^~~~~~~~~~~~~', ...Array.from({ length: 300 }, (_, i) => `[ ${i + 1}/300] Building CXX object step_${i + 1}.o`)];
    const excerpt = compilationExcerpt(`${lines.join('\n')}\n`).split('\n');
    expect(excerpt.slice(0, 3)).toEqual(['[compiler errors: output line 2]', GCC, '[last 40 of 304 lines]']);
    expect(excerpt.slice(3)).toEqual(lines.slice(-40));
  });

  it('short output is shown whole', () => {
    expect(compilationExcerpt(`${GCC}\nmake: *** [all] Error 1\n`)).toBe(`${GCC}\nmake: *** [all] Error 1`);
  });

  it('property: every line shown is an output line; an error anywhere is shown; the last line is the output last line', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[ -~]{0,30}$/), { maxLength: 200 }), fc.nat(199), (noise, at) => {
        const lines = [...noise];
        lines.splice(Math.min(at, lines.length), 0, 'src/x.cpp:7:3: error: boom');
        while (lines.length > 1 && lines.at(-1) === '') lines.pop();
        const excerpt = compilationExcerpt(lines.join('\n')).split('\n');
        const content = excerpt.filter((l) => !/^\[(compiler errors|last \d+ of)/.test(l));
        return content.every((l) => lines.includes(l)) && excerpt.includes('src/x.cpp:7:3: error: boom') && excerpt.at(-1) === lines.at(-1);
      }),
    );
  });
});
