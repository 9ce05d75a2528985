/**
 * The real-file tolerance corpus (tolerance-real.ts) run through editwarden's
 * engine and, on the same cases in the same test, through faithful
 * re-implementations of opencode's replacer chain and Codex's seek_sequence.
 * Prints a per-class table (applied / correct / wrong / wrong place / false)
 * and holds editwarden to the goal: 0 false matches, 0 wrong places, correct
 * on at least 99% of the should-apply cases.
 */
import { describe, expect, it } from 'vitest';
import { planFile } from '../../src/edit/engine.js';
import { fromRawText, renderRaw } from '../../src/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../../src/edit/types.js';
import { codexReplace } from './baselines/codex-seek-sequence.js';
import { opencodeReplace } from './baselines/opencode-replace.js';
import { buildRealCorpus, MUST_REFUSE_CLASSES, SHOULD_APPLY_CLASSES, type RealCase } from './tolerance-real.js';

type Tool = (file: string, oldText: string, newText: string) => string | undefined;

const TOOLS: Record<string, Tool> = {
  editwarden: (file, oldText, newText) => {
    const plan = planFile('f', fromRawText(file), [{ action: 'edit', path: 'f', oldText, newText }], { ...DEFAULT_EDIT_OPTIONS, strict: false });
    return plan.ok && plan.after && plan.changed ? renderRaw(plan.after) : undefined;
  },
  opencode: (file, oldText, newText) => {
    // Fairness: opencode's line replacers match a block without its final newline, so a quote ending in "\n"
    // would gain a blank line there; models using opencode send quotes without it. Strip one from both.
    const both = oldText.endsWith('\n') && newText.endsWith('\n');
    try {
      return opencodeReplace(file, both ? oldText.slice(0, -1) : oldText, both ? newText.slice(0, -1) : newText);
    } catch {
      return undefined;
    }
  },
  codex: (file, oldText, newText) => {
    try {
      return codexReplace(file, oldText, newText);
    } catch {
      return undefined;
    }
  },
};

interface Row {
  n: number;
  applied: number;
  correct: number;
  wrong: number;
  wrongPlace: number;
  falseMatch: number;
}

/** The changed line range of `after` against `before`: first and last differing line (0-based, in `before`). */
function touched(before: string, after: string): [number, number] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [head, a.length - tail];
}

function score(c: RealCase, result: string | undefined, row: Row): void {
  row.n++;
  if (result === undefined) return;
  row.applied++;
  if (!c.shouldApply) {
    row.falseMatch++;
    return;
  }
  if (result === c.expected) {
    row.correct++;
    return;
  }
  row.wrong++;
  const [from, to] = touched(c.file, result);
  const span = c.span as [number, number];
  if (from < span[0] || to > span[1]) row.wrongPlace++;
}

const corpus = buildRealCorpus(10);

describe('real-file tolerance corpus: editwarden next to opencode and codex', () => {
  it('has every class, from four languages', () => {
    for (const klass of [...SHOULD_APPLY_CLASSES, ...MUST_REFUSE_CLASSES]) expect(corpus.filter((c) => c.klass === klass).length).toBeGreaterThanOrEqual(10);
    expect(new Set(corpus.map((c) => c.source.split(':')[0])).size).toBe(4);
  });

  it('meets the goal: 0 false matches, 0 wrong places, correct on ≥ 99% of should-apply cases', () => {
    const table = new Map<string, Map<string, Row>>();
    for (const c of corpus) {
      for (const [tool, run] of Object.entries(TOOLS)) {
        const byClass = table.get(tool) ?? new Map<string, Row>();
        table.set(tool, byClass);
        const row = byClass.get(c.klass) ?? { n: 0, applied: 0, correct: 0, wrong: 0, wrongPlace: 0, falseMatch: 0 };
        byClass.set(c.klass, row);
        score(c, run(c.file, c.oldText, c.newText), row);
      }
    }
    const lines: string[] = ['', '| class | n | editwarden applied/correct/wrong/wrong place/false | opencode | codex |', '|---|---|---|---|---|'];
    const cell = (r: Row | undefined): string => (r ? `${r.applied} / ${r.correct} / ${r.wrong} / ${r.wrongPlace} / ${r.falseMatch}` : '-');
    const totals = new Map<string, Row>();
    for (const klass of [...SHOULD_APPLY_CLASSES, ...MUST_REFUSE_CLASSES]) {
      const rows = Object.keys(TOOLS).map((t) => table.get(t)?.get(klass));
      lines.push(`| ${klass}${MUST_REFUSE_CLASSES.includes(klass) ? ' (must refuse)' : ''} | ${rows[0]?.n ?? 0} | ${rows.map(cell).join(' | ')} |`);
      Object.keys(TOOLS).forEach((t, k) => {
        const sum = totals.get(t) ?? { n: 0, applied: 0, correct: 0, wrong: 0, wrongPlace: 0, falseMatch: 0 };
        const r = rows[k];
        if (r) for (const key of Object.keys(sum) as Array<keyof Row>) sum[key] += r[key];
        totals.set(t, sum);
      });
    }
    lines.push(
      `| all | ${totals.get('editwarden')?.n} | ${Object.keys(TOOLS)
        .map((t) => cell(totals.get(t)))
        .join(' | ')} |`,
    );
    const shouldApply = corpus.filter((c) => c.shouldApply).length;
    for (const t of Object.keys(TOOLS)) {
      const r = totals.get(t) as Row;
      lines.push(`${t}: correct ${r.correct}/${shouldApply} should-apply (${((100 * r.correct) / shouldApply).toFixed(1)}%), false matches ${r.falseMatch}/${corpus.length - shouldApply}, wrong ${r.wrong} (wrong place ${r.wrongPlace})`);
    }
    console.log(lines.join('\n'));
    const ours = totals.get('editwarden') as Row;
    expect(ours.falseMatch).toBe(0);
    expect(ours.wrongPlace).toBe(0);
    expect(ours.correct / shouldApply).toBeGreaterThanOrEqual(0.99);
    // The figures of this round (issue 42): every should-apply case right — the two classes the peers' tests found
    // harmful included (a quote copied from an indented line's first character, new_text re-indented as a whole
    // block: 0/40 right before, every one a wrong write; a quote a level shallower with closing braces a level
    // apart, new_text at the file's indentation: 12/26 before, 12 wrong writes) — in four languages, YAML included,
    // and none of the 200 must-refuse cases applied.
    expect({ correct: ours.correct, shouldApply, falseMatch: ours.falseMatch, mustRefuse: corpus.length - shouldApply }).toEqual({ correct: 539, shouldApply: 539, falseMatch: 0, mustRefuse: 200 });
  });
});
