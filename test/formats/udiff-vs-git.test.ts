/**
 * Model-style unified diffs against `git apply` on the same inputs: diffs cut
 * from the vendored real files (test/fixtures/tolerance/) with the mistakes
 * models make (line numbers off, a hunk body longer than its header,
 * whitespace lost in context lines), applied by editwarden (tolerant) and by
 * real git (`git apply`, and `git apply --recount`) in a temp repository.
 * Prints apply rate and correctness per class; editwarden must never produce
 * a wrong file and must agree with git byte for byte wherever both apply.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyHunks } from '../../src/edit/hunks.js';
import { parseUnifiedDiff } from '../../src/formats/index.js';

const FIXTURES = path.resolve(__dirname, '../fixtures/tolerance');
const FILES = ['eventsource-parse.ts.txt', 'textwrap.py.txt', 'xxmodule.c.txt'];
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-udiff-git-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
spawnSync('git', ['init', '-q'], { cwd: root });

interface Case {
  klass: string;
  file: string;
  name: string;
  diff: string;
  expected: string;
}

function makeCases(): Case[] {
  const out: Case[] = [];
  for (const name of FILES) {
    const text = fs.readFileSync(path.join(FIXTURES, name), 'utf8');
    const lines = text.replace(/\n$/, '').split('\n');
    for (let k = 0; k < 20; k++) {
      const at = 10 + Math.floor((((k * 7919) % 997) / 997) * (lines.length - 30));
      if (lines.slice(at, at + 7).some((l) => l.trim() === '')) continue;
      const ctxBefore = lines.slice(at, at + 3);
      const target = lines[at + 3] as string;
      const ctxAfter = lines.slice(at + 4, at + 7);
      const changed = `${target} /*x*/`;
      const expected = [...lines.slice(0, at + 3), changed, ...lines.slice(at + 4)].join('\n') + '\n';
      const head = `--- a/${name}\n+++ b/${name}\n`;
      const body = (before: string[], after: string[]): string => [...before.map((l) => ` ${l}`), `-${target}`, `+${changed}`, ...after.map((l) => ` ${l}`)].join('\n') + '\n';
      const hdr = (start: number, oldN: number, newN: number): string => `@@ -${start},${oldN} +${start},${newN} @@\n`;
      const base = { file: name, name: `${name}:${at + 4}`, expected };
      out.push({ ...base, klass: 'exact', diff: head + hdr(at + 1, 7, 7) + body(ctxBefore, ctxAfter) });
      out.push({ ...base, klass: 'line numbers off by 12', diff: head + hdr(at + 13, 7, 7) + body(ctxBefore, ctxAfter) });
      out.push({ ...base, klass: 'header counts one short', diff: head + hdr(at + 1, 6, 6) + body(ctxBefore, ctxAfter) });
      out.push({
        ...base,
        klass: 'context indentation lost',
        diff:
          head +
          hdr(at + 1, 7, 7) +
          body(
            ctxBefore.map((l) => l.trimStart()),
            ctxAfter.map((l) => l.trimStart()),
          ),
      });
      out.push({
        ...base,
        klass: 'trailing spaces in context',
        diff:
          head +
          hdr(at + 1, 7, 7) +
          body(
            ctxBefore.map((l) => `${l}  `),
            ctxAfter,
          ),
      });
    }
  }
  return out;
}

function viaEditwarden(c: Case, text: string): string | undefined {
  const parsed = parseUnifiedDiff(c.diff);
  const r = parsed.requests[0];
  if (parsed.errors.length > 0 || r?.action !== 'patch') return undefined;
  try {
    return applyHunks(text, r, { strict: false }).text;
  } catch {
    return undefined;
  }
}

function viaGit(c: Case, text: string, flags: string[]): string | undefined {
  fs.writeFileSync(path.join(root, c.file), text);
  const r = spawnSync('git', ['apply', ...flags, '-'], { cwd: root, input: c.diff, encoding: 'utf8' });
  return r.status === 0 ? fs.readFileSync(path.join(root, c.file), 'utf8') : undefined;
}

describe('model-style unified diffs: editwarden next to git apply', () => {
  it('editwarden never writes a wrong file and agrees with git wherever both apply', () => {
    const cases = makeCases();
    const rows = new Map<string, Record<string, { applied: number; correct: number; n: number }>>();
    let disagreements = 0;
    let wrong = 0;
    for (const c of cases) {
      const text = fs.readFileSync(path.join(FIXTURES, c.file), 'utf8');
      const results = { editwarden: viaEditwarden(c, text), 'git apply': viaGit(c, text, []), 'git apply --recount': viaGit(c, text, ['--recount']) };
      const row = rows.get(c.klass) ?? {};
      rows.set(c.klass, row);
      for (const [tool, result] of Object.entries(results)) {
        const cell = (row[tool] ??= { applied: 0, correct: 0, n: 0 });
        cell.n++;
        if (result !== undefined) cell.applied++;
        if (result === c.expected) cell.correct++;
      }
      if (results.editwarden !== undefined && results.editwarden !== c.expected) wrong++;
      for (const g of [results['git apply'], results['git apply --recount']]) if (g !== undefined && results.editwarden !== undefined && g !== results.editwarden) disagreements++;
    }
    const table = ['', '| class | n | editwarden applied/correct | git apply | git apply --recount |', '|---|---|---|---|---|'];
    for (const [klass, row] of rows) {
      const cell = (t: string): string => `${row[t]?.applied} / ${row[t]?.correct}`;
      table.push(`| ${klass} | ${row.editwarden?.n} | ${cell('editwarden')} | ${cell('git apply')} | ${cell('git apply --recount')} |`);
    }
    console.log(table.join('\n'));
    expect(wrong).toBe(0);
    expect(disagreements).toBe(0);
  });
});
