/**
 * The dialect corpus: replies written the way other agents' edit tools take
 * them (Roo Code's apply_diff, Codex's apply_patch through a shell, Cline's
 * replace_in_file, opencode's and gemini-cli's edit with an empty old_string,
 * Aider's fences as models mangle them), as data — one folder per case under
 * test/fixtures/dialects/NNN-name/:
 *
 *   before/          the project before the reply (absent: an empty project)
 *   reply.txt        the model's reply, format detected as `editwarden apply` does
 *   after/           the whole project after it, byte for byte; or
 *   expected-error   line 1: the error code one refused result must carry (nothing is written);
 *                    further lines: text its message or hint must contain (the one thing to change)
 *   result.json      optional: what each result must say, in order — its fields (`path`, `strategy`, …) and
 *                    `notes`: texts each of which one of its notes must contain (the normalisation it used)
 *
 * One driver runs them all through the library's applyReply on a real temp
 * folder and prints the tally (identical / refused correctly / wrong writes).
 * Add a case by adding a folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { applyReply } from '../../src/apply/apply-reply.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempDir } from '../temp-dirs.js';

const CORPUS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'dialects');
const cases = fs
  .readdirSync(CORPUS)
  .filter((name) => /^\d{3}-/.test(name))
  .sort();

/** Every file of a tree (relative path → content), editwarden's own state folder aside. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(root)) return out;
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.editwarden' && entry.name !== '.git') walk(full);
      } else out[path.relative(root, full).split(path.sep).join('/')] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return out;
}

const tally = { identical: 0, refusedCorrectly: 0, wrongWrites: [] as string[], wrongRefusals: [] as string[] };

afterAll(() => {
  console.log(
    `dialect corpus: ${cases.length} cases — ${tally.identical} identical, ${tally.refusedCorrectly} refused correctly, ${tally.wrongWrites.length} wrong writes${tally.wrongWrites.length ? ` (${tally.wrongWrites.join(', ')})` : ''}, ${tally.wrongRefusals.length} refused wrongly${tally.wrongRefusals.length ? ` (${tally.wrongRefusals.join(', ')})` : ''}`,
  );
});

describe('dialect corpus: replies in the other agents’ dialects', () => {
  it('has cases, each with a reply and exactly one expectation', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
    for (const name of cases) {
      const dir = path.join(CORPUS, name);
      expect(fs.existsSync(path.join(dir, 'reply.txt')), name).toBe(true);
      expect(fs.existsSync(path.join(dir, 'after')) !== fs.existsSync(path.join(dir, 'expected-error')), name).toBe(true);
    }
  });

  it.each(cases)('%s', async (name) => {
    const dir = path.join(CORPUS, name);
    const root = tempDir('ew-dialect-');
    fs.cpSync(path.join(dir, 'before'), root, { recursive: true });
    const before = tree(root);
    const reply = fs.readFileSync(path.join(dir, 'reply.txt'), 'utf8');
    const outcome = await applyReply(openWorkspace(root).ws, reply);
    const after = tree(root);
    const errorFile = path.join(dir, 'expected-error');
    if (fs.existsSync(errorFile)) {
      const [code, ...texts] = fs.readFileSync(errorFile, 'utf8').trimEnd().split('\n');
      const refused = outcome.results.find((r) => r.error?.code === code);
      if (outcome.ok || JSON.stringify(after) !== JSON.stringify(before)) tally.wrongWrites.push(name);
      else if (refused) tally.refusedCorrectly++;
      expect(outcome.ok).toBe(false);
      expect(after).toEqual(before);
      expect(outcome.results.map((r) => r.error?.code)).toContain(code);
      for (const text of texts) expect(`${refused?.error?.message}\n${refused?.error?.hint}`).toContain(text);
    } else {
      const expected = tree(path.join(dir, 'after'));
      if (JSON.stringify(after) === JSON.stringify(expected)) tally.identical++;
      else if (JSON.stringify(after) === JSON.stringify(before)) tally.wrongRefusals.push(name);
      else tally.wrongWrites.push(name);
      expect(outcome.results.map((r) => r.error ?? r.status)).toEqual(outcome.results.map(() => 'applied'));
      expect(after).toEqual(expected);
    }
    const resultFile = path.join(dir, 'result.json');
    if (fs.existsSync(resultFile)) {
      const wanted = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as Array<Record<string, unknown> & { notes?: string[] }>;
      expect(outcome.results.length).toBe(wanted.length);
      wanted.forEach(({ notes, ...fields }, k) => {
        const got = outcome.results[k];
        expect(got).toMatchObject(fields);
        for (const text of notes ?? []) expect(got?.notes ?? [], `${name}: result ${k} notes`).toEqual(expect.arrayContaining([expect.stringContaining(text)]));
      });
    }
  });
});
