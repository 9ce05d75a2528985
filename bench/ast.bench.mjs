// AST paths and the syntax guard on 5,000-line files (TypeScript, Python, Go, Rust, Java).
//   resolve:<lang>  parse + outline + resolve of a path near the end, next to the bare tree-sitter parse
//                   of the same text in the same run (goal: ≤ 1.5×).
//   guard:<lang>    one edit to the file: applying an AST replace without the guard (baseline) and with
//                   the guard (value; incremental re-parse from the tree the AST request kept).
//   guard-text:<lang> a plain text edit (no AST request, so no kept tree): the guard's one full parse,
//                   next to the text edit itself.
//   guard-100k:*    a plain text edit (the engine's planFile, exact old_text → new_text) of one line in
//                   the middle of a 100,000-line TypeScript file, with the guard (value) and without
//                   (baseline), for two shapes of file: `flat` (100k top-level statements, the MCP
//                   bench's file and tree-sitter's worst case for incremental re-parsing) and `classes`
//                   (classes of methods, the 5,000-line generator's shape). Cases:
//                     fresh    — a new AstService (the CLI: no tree kept), one full parse;
//                     session  — the service kept the tree of the text on disk (an earlier edit
//                                or read in the same MCP session): incremental re-parse;
//                     refused  — session, an edit that breaks the file (E_SYNTAX);
//                     retry    — session, the next edit after that refusal (the file on disk is unchanged).
//   guard-cli:100k  the syntax guard in a one-shot `editwarden edit` (bin/editwarden, a fresh process) of the
//                   flat 100k-line .ts: CPU time (user + sys) of the edit with the guard minus the same edit
//                   with `edit.syntax_guard: off`, next to the bare tree-sitter parse of that file (in process,
//                   warmed up; goal ≤ 1.5×), and next to the first parse in a fresh process with the CLI's V8
//                   flags (load the grammar and parse, minus load only: the floor of any one-shot guard).
//                   EW_BENCH_AST_CLI_N runs each (default 5).
import { loadGrammar } from '../dist/ast/grammars.js';
import { AstService } from '../dist/ast/service.js';
import { prepareAstHooks } from '../dist/ast/hooks.js';
import { planFile } from '../dist/edit/engine.js';
import { decodeText } from '../dist/edit/text.js';
import { DEFAULT_EDIT_OPTIONS } from '../dist/edit/types.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childCpuMs, median, timeIt, ms, ratio } from './stats.mjs';

const LINES = 5000;
const ITERATIONS = 21;

/** Each generator returns [text, path of a method near the end, the method's name]. */
const generators = {
  typescript: (n) => {
    const out = ['import { x } from "./x";', ''];
    let i = 0;
    while (out.length < n) {
      out.push(`/** Class number ${i}. */`, `export class C${i} {`, '  private count = 0;', '');
      for (let j = 0; j < 5; j++) out.push(`  /** Method ${j}. */`, `  method${j}(a: number): number {`, `    const x = a + ${j};`, '    return x * 2;', '  }', '');
      out.push('}', '');
      i++;
    }
    return [out.join('\n'), `C${i - 1}-method3`];
  },
  python: (n) => {
    const out = ['import os', '', ''];
    let i = 0;
    while (out.length < n) {
      out.push(`class C${i}:`, `    """Class number ${i}."""`, '', '    count = 0', '');
      for (let j = 0; j < 5; j++) out.push(`    # Method ${j}.`, `    def method${j}(self, a):`, `        x = a + ${j}`, '        return x * 2', '');
      out.push('');
      i++;
    }
    return [out.join('\n'), `C${i - 1}-method3`];
  },
  go: (n) => {
    const out = ['package main', '', 'import "fmt"', ''];
    let i = 0;
    while (out.length < n) {
      out.push(`// C${i} is number ${i}.`, `type C${i} struct {`, '\tcount int', '}', '');
      for (let j = 0; j < 5; j++) out.push(`// Method${j} does ${j}.`, `func (c *C${i}) Method${j}(a int) int {`, `\tx := a + ${j}`, '\tfmt.Println(x)', '\treturn x * 2', '}', '');
      i++;
    }
    return [out.join('\n'), `C${i - 1}-Method3`];
  },
  rust: (n) => {
    const out = ['use std::fmt;', ''];
    let i = 0;
    while (out.length < n) {
      out.push(`/// Number ${i}.`, `pub struct C${i} {`, '    count: u32,', '}', '', `impl C${i} {`);
      for (let j = 0; j < 5; j++) out.push(`    /// Method ${j}.`, `    pub fn method${j}(&self, a: u32) -> u32 {`, `        let x = a + ${j};`, '        x * 2', '    }', '');
      out.push('}', '');
      i++;
    }
    return [out.join('\n'), `C${i - 1}-method3`];
  },
  java: (n) => {
    const out = ['package bench;', '', 'public class Big {'];
    let i = 0;
    while (out.length < n - 1) {
      out.push(`    /** Class number ${i}. */`, `    static class C${i} {`, '        private int count = 0;', '');
      for (let j = 0; j < 5; j++) out.push(`        /** Method ${j}. */`, `        int method${j}(int a) {`, `            int x = a + ${j};`, '            return x * 2;', '        }', '');
      out.push('    }', '');
      i++;
    }
    out.push('}');
    return [out.join('\n'), `Big-C${i - 1}-method3`];
  },
};

const EXT = { typescript: 'ts', python: 'py', go: 'go', rust: 'rs', java: 'java' };

const BIG_LINES = 100_000;
const BIG_ITERATIONS = Number(process.env.EW_BENCH_AST_N ?? 7);

/** The MCP bench's file: one top-level statement per line. */
function flatTypeScript(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(`    const value_${i} = compute(${i}, "some text to make the line realistic");`);
  return out.join('\n') + '\n';
}

/** Plain text edits to a 100k-line .ts file through planFile, with and without the guard. */
async function bigFileRows(shape, text) {
  const file = 'big.ts';
  await prepareAstHooks([file], 'refuse');
  const doc = decodeText(new TextEncoder().encode(text), file);
  const lines = text.split('\n');
  const middle = Math.floor(lines.length / 2);
  // A unique code line near the middle (methods repeat, so one that names its number; not a comment).
  let k = middle;
  while (!/\d/.test(lines[k]) || /^\s*\/[*/]/.test(lines[k]) || text.indexOf(lines[k]) !== text.lastIndexOf(lines[k])) k++;
  const oldText = lines[k];
  const fixed = oldText.replace(/(\d+)/, '$1$1');
  // A local syntax error (an operator with nothing after it) in that line.
  const broken = oldText.replace(/(\d+)/, '$1 +');
  const request = (newText) => [{ action: 'edit', path: file, oldText, newText }];
  const plan = (newText, hooks) => planFile(file, doc, request(newText), DEFAULT_EDIT_OPTIONS, hooks);
  const rows = [];
  const without = median(timeIt(() => plan(fixed), BIG_ITERATIONS));
  const row = (name, value, note) => rows.push({ case: `guard-100k:${shape} ${name}`, value: ms(value), baseline: `${ms(without)} no guard`, ratio: ratio(value, without), goal: '', note });
  const expectOk = (p) => {
    if (!p.ok) throw new Error(`bench edit refused: ${p.steps[0]?.error?.message}`);
  };
  const expectRefused = (p) => {
    if (p.ok || p.steps[0]?.error?.code !== 'E_SYNTAX') throw new Error(`${shape}: bench breaking edit ${JSON.stringify(broken)} was not refused with E_SYNTAX: ${p.ok ? 'applied' : p.steps[0]?.error?.message}`);
  };

  const fresh = [];
  for (let i = 0; i < BIG_ITERATIONS; i++) {
    const s = new AstService('refuse');
    fresh.push(...timeIt(() => expectOk(plan(fixed, s)), 1));
    s.dispose();
  }
  row('fresh', median(fresh), 'CLI: no kept tree, one full parse');

  const session = [];
  const refused = [];
  const retry = [];
  for (let i = 0; i < BIG_ITERATIONS; i++) {
    const s = new AstService('refuse');
    s.newSyntaxErrors(file, null, text); // the session has the tree of the text on disk (an earlier edit)
    refused.push(...timeIt(() => expectRefused(plan(broken, s)), 1));
    retry.push(...timeIt(() => expectOk(plan(fixed, s)), 1));
    s.dispose();
    const t = new AstService('refuse');
    t.newSyntaxErrors(file, null, text);
    session.push(...timeIt(() => expectOk(plan(fixed, t)), 1));
    t.dispose();
  }
  row('session', median(session), 'tree of the text on disk kept: incremental re-parse');
  row('refused', median(refused), `session, breaking edit refused with E_SYNTAX: ${JSON.stringify(broken.trim())}`);
  row('retry', median(retry), 'session, next edit after the refusal (file unchanged)');
  return rows;
}

const CLI_RUNS = Number(process.env.EW_BENCH_AST_CLI_N ?? 5);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The guard's CPU time in a one-shot CLI edit of the flat 100k-line file, next to the bare parse. */
export async function cliGuardRows(text) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-ast-cli-'));
  try {
    const on = path.join(tmp, 'on');
    const off = path.join(tmp, 'off');
    for (const dir of [on, off]) {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'big.ts'), text);
    }
    fs.writeFileSync(path.join(off, '.editwarden.yml'), 'edit:\n  syntax_guard: off\n');
    const bin = path.join(repo, 'bin', 'editwarden');
    const swaps = [
      ['value_50000 =', 'value_50000b ='],
      ['value_50000b =', 'value_50000 ='],
    ];
    // The first parse in a fresh process, with the CLI's V8 flag: grammar load + parse, minus grammar load.
    const probe = path.join(tmp, 'parse.mjs');
    fs.writeFileSync(
      probe,
      [
        "import fs from 'node:fs';",
        `const { loadGrammar } = await import(${JSON.stringify(new URL('../dist/ast/grammars.js', import.meta.url).href)});`,
        "const { parser } = await loadGrammar('typescript');",
        "if (process.argv[2] === 'parse') parser.parse(fs.readFileSync(process.argv[3], 'utf8'));",
        'process.exit(0);',
      ].join('\n'),
    );
    const samples = { on: [], off: [], load: [], parse: [] };
    for (let i = 0; i < CLI_RUNS; i++) {
      const [oldText, newText] = swaps[i % 2];
      samples.on.push(await childCpuMs([process.execPath, bin, 'edit', 'big.ts', '--old', oldText, '--new', newText], on));
      samples.off.push(await childCpuMs([process.execPath, bin, 'edit', 'big.ts', '--old', oldText, '--new', newText], off));
      samples.load.push(await childCpuMs([process.execPath, '--liftoff-only', probe, 'load'], on));
      samples.parse.push(await childCpuMs([process.execPath, '--liftoff-only', probe, 'parse', 'big.ts'], on));
    }
    const { parser } = await loadGrammar('typescript');
    for (let i = 0; i < 2; i++) parser.parse(text).delete();
    // CPU time like the children's (wall time would count the waits of a loaded machine).
    const bareSamples = [];
    for (let i = 0; i < CLI_RUNS; i++) {
      const before = process.cpuUsage();
      parser.parse(text).delete();
      const used = process.cpuUsage(before);
      bareSamples.push((used.user + used.system) / 1000);
    }
    const bare = median(bareSamples);
    const guard = median(samples.on) - median(samples.off);
    const firstParse = median(samples.parse) - median(samples.load);
    const r = guard / bare;
    return [
      {
        case: 'guard-cli:100k fresh (one-shot CLI)',
        value: `${guard.toFixed(0)} ms CPU`,
        baseline: `${bare.toFixed(0)} ms CPU bare parse`,
        ratio: `${r.toFixed(2)}x`,
        goal: '≤ 1.50x',
        met: r <= 1.5 ? 'met' : 'not met',
        note: `edit with guard ${median(samples.on).toFixed(0)} ms − without ${median(samples.off).toFixed(0)} ms; load ${os.loadavg()[0].toFixed(1)}`,
      },
      {
        case: 'guard-cli:100k vs first parse in a fresh process',
        value: `${guard.toFixed(0)} ms CPU`,
        baseline: `${firstParse.toFixed(0)} ms CPU first parse`,
        ratio: ratio(guard, firstParse),
        note: 'the floor of a one-shot guard: one cold parse (wasm baseline tier), grammar load excluded',
      },
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export async function run() {
  const rows = [];
  for (const [grammar, generate] of Object.entries(generators)) {
    const [text, astPath] = generate(LINES);
    const file = `big.${EXT[grammar]}`;
    const lines = text.split('\n').length;
    const { parser } = await loadGrammar(grammar);
    await prepareAstHooks([file], 'refuse');
    // Warm-up: the first parses pay for wasm tiering.
    for (let i = 0; i < 3; i++) parser.parse(text).delete();

    // Interleaved, so that load from other processes hits both measurements alike.
    const bareSamples = [];
    const fullSamples = [];
    for (let i = 0; i < ITERATIONS; i++) {
      bareSamples.push(...timeIt(() => parser.parse(text).delete(), 1));
      fullSamples.push(
        ...timeIt(() => {
          const service = new AstService('refuse');
          service.resolve(file, text, astPath);
          service.dispose();
        }, 1),
      );
    }
    const bare = median(bareSamples);
    const full = median(fullSamples);
    rows.push({ case: `resolve:${grammar} (${lines} lines)`, value: ms(full), baseline: `${ms(bare)} bare parse`, ratio: ratio(full, bare), goal: '≤ 1.50x', note: `path ${astPath}` });

    // One AST edit: replace the method body, without and with the guard.
    const service = new AstService('refuse');
    const entry = service.resolve(file, text, astPath);
    service.dispose();
    const body = text.slice(entry.nodeStart, entry.end).replace(/\d+;?(\s*)$/m, (m) => m.replace(/\d+/, '3'));
    const request = { action: 'ast', path: file, astPath, astAction: 'replace', content: body };
    let issues = [];
    const withoutSamples = [];
    const withSamples = [];
    for (let i = 0; i < ITERATIONS; i++) {
      withoutSamples.push(
        ...timeIt(() => {
          const s = new AstService('refuse');
          s.applyAst(file, text, request);
          s.dispose();
        }, 1),
      );
      withSamples.push(
        ...timeIt(() => {
          const s = new AstService('refuse');
          const out = s.applyAst(file, text, request);
          issues = s.newSyntaxErrors(file, text, out.text);
          s.dispose();
        }, 1),
      );
    }
    const withoutGuard = median(withoutSamples);
    const withGuard = median(withSamples);
    if (issues.length > 0) throw new Error(`bench edit broke ${file}: ${JSON.stringify(issues[0])}`);
    rows.push({ case: `guard:${grammar} (AST edit)`, value: `${ms(withGuard)} (+${ms(withGuard - withoutGuard)})`, baseline: `${ms(withoutGuard)} no guard`, ratio: ratio(withGuard, withoutGuard), goal: '', note: 'incremental re-parse' });

    // A plain text edit: the guard has no kept tree and parses the new text once.
    const needle = text.lastIndexOf('x * 2');
    const edited = () => text.slice(0, needle) + 'x * 3' + text.slice(needle + 5);
    const textEdit = median(timeIt(() => edited(), ITERATIONS));
    const textGuard = median(
      timeIt(() => {
        const s = new AstService('refuse');
        issues = s.newSyntaxErrors(file, text, edited());
        s.dispose();
      }, ITERATIONS),
    );
    if (issues.length > 0) throw new Error(`bench text edit broke ${file}`);
    rows.push({ case: `guard-text:${grammar}`, value: ms(textGuard), baseline: `${ms(textEdit)} edit alone`, ratio: '', goal: '', note: 'one full parse of the new text' });
  }
  const [classes] = generators.typescript(BIG_LINES);
  rows.push(...(await bigFileRows('flat', flatTypeScript(BIG_LINES))));
  rows.push(...(await cliGuardRows(flatTypeScript(BIG_LINES))));
  rows.push(...(await bigFileRows('classes', classes)));
  return rows;
}
