/**
 * The import rules of docs/architecture.md, read from src/ itself (no build):
 * the folders form a DAG in the documented rank, only the CLI imports cli/,
 * the pure floors import no file system or process module, and no source
 * file grows past 450 lines. Imports are found by TypeScript's own
 * pre-processor (static, `export … from`, `import type` and dynamic
 * `import()`), so an import written inside a string literal is not one.
 */
import fs from 'node:fs';
import path from 'node:path';
import type * as TS from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_SETTINGS } from '../../src/config/client-settings.js';
import { KNOWN_TOOL_NAMES } from '../../src/config/config.js';
import { RUN_MODES } from '../../src/config/modes.js';
import { memberCovering, PROTECTED_MEMBERS, type ProtectedMember } from '../../src/config/protected-set.js';
import { CLIENTS } from '../../src/integrations/index.js';
import { ts } from '../typescript.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * The floors, lowest first: a folder imports only folders before it. The
 * same list, with each floor's job, is the table in docs/architecture.md.
 * `builtins`, `defined`, `arrays`, `errors`, `small-file` and `index` are the files src/builtins.ts, src/defined.ts, src/arrays.ts, src/errors.ts, src/small-file.ts and src/index.ts.
 */
const RANK = [
  'builtins',
  'defined',
  'arrays',
  'errors',
  'small-file',
  'edit',
  'formats',
  'ast',
  'config',
  'sandbox',
  'workspace',
  'guard',
  'runs',
  'verify',
  'apply',
  'host',
  'tools',
  'report',
  'agent',
  'integrations',
  'mcp',
  'index',
  'cli',
] as const;

/**
 * Files over the line limit that other branches of the same issue are
 * splitting (ToolRunner.call, runEditor, the hunk matcher). The lead empties
 * this set when those branches merge; no file is to be added to it.
 */
const BEING_SPLIT = new Set<string>();
const MAX_LINES = 450;

/** Modules that reach the file system, other processes or the network: the pure floors import none. */
const IO_MODULES = ['fs', 'fs/promises', 'child_process', 'worker_threads', 'net', 'http', 'https', 'http2', 'dgram', 'cluster', 'tls', 'readline', 'os', 'process', 'vm', 'inspector'];
const PURE_FLOORS = ['edit', 'formats'];

interface SourceFile {
  /** Relative to src/, with `/`. */
  rel: string;
  folder: string;
  text: string;
  /** Relative imports resolved to src/-relative .ts paths (or outside src/: starting with ../). */
  local: string[];
  /** Package and node: imports, as written. */
  external: string[];
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSources(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

function folderOf(rel: string): string {
  const parts = rel.split('/');
  return parts.length > 1 ? (parts[0] as string) : (parts[0] as string).replace(/\.ts$/, '');
}

/**
 * The program the build compiles: tsconfig.build.json's own files and options (its lib, ES2023, not the DOM), as
 * `tsc -b` reads them, with no output. Made once for the whole file: the options-field rule asks its type checker,
 * and every syntax-tree rule reads its parsed files (parsing src/ and the declarations it reaches is most of the
 * file's cost; a second parse of src/ for the syntax rules cost ~0.6 s of CPU).
 */
let program: TS.Program | undefined;
// Files share a worker process (vitest.config.ts): the program (~300 MB of heap) goes when this file ends, whatever
// else keeps the module.
afterAll(() => {
  program = undefined;
});
function buildProgram(): TS.Program {
  if (program) return program;
  const config = ts.getParsedCommandLineOfConfigFile(
    path.resolve(SRC, '../tsconfig.build.json'),
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const errors = config?.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')) ?? ['not read'];
  if (!config || errors.length > 0) throw new Error(`tsconfig.build.json: ${errors.join('\n')}`);
  // Parent pointers set while parsing: the syntax rules read a node's text and line.
  const host = ts.createCompilerHost(config.options, true);
  // JSDoc parsed as tsc itself parses it (only where it can hold a type error): no rule reads a doc comment.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
  return program;
}

/** A file's syntax tree: the build program's own parse of it. */
function treeOf(f: Pick<SourceFile, 'rel'>): TS.SourceFile {
  const tree = buildProgram().getSourceFile(path.join(SRC, f.rel));
  if (!tree) throw new Error(`src/${f.rel} is not in the program of tsconfig.build.json`);
  return tree;
}

function readSources(): SourceFile[] {
  return listSources(SRC).map((full) => {
    const rel = path.relative(SRC, full).split(path.sep).join('/');
    const text = fs.readFileSync(full, 'utf8');
    const local: string[] = [];
    const external: string[] = [];
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (fileName.startsWith('.')) {
        const target = path
          .relative(SRC, path.resolve(path.dirname(full), fileName))
          .split(path.sep)
          .join('/');
        local.push(target.replace(/\.js$/, '.ts'));
      } else {
        external.push(fileName);
      }
    }
    return { rel, folder: folderOf(rel), text, local, external };
  });
}

/** Folder → the folders it imports, each with one file that does it (for the failure message). */
function folderGraph(files: readonly SourceFile[]): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const f of files) {
    for (const target of f.local) {
      if (target.startsWith('..')) continue;
      const to = folderOf(target);
      if (to === f.folder) continue;
      if (!graph.has(f.folder)) graph.set(f.folder, new Map());
      const edges = graph.get(f.folder) as Map<string, string>;
      if (!edges.has(to)) edges.set(to, `${f.rel} → ${target}`);
    }
  }
  return graph;
}

/** A cycle of folders, or null (depth-first search with colours). */
function findCycle(graph: Map<string, Map<string, string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    if (state.get(node) !== undefined) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

const files = readSources();
const graph = folderGraph(files);

describe('the folders of src/ form a DAG in the documented rank', () => {
  it('every folder of src/ has a place in the rank', () => {
    const unranked = [...new Set(files.map((f) => f.folder))].filter((f) => !(RANK as readonly string[]).includes(f));
    expect(unranked, 'add the new floor to RANK here and to the table in docs/architecture.md').toEqual([]);
  });

  it('no cycle between folders', () => {
    expect(findCycle(graph)).toBeNull();
  });

  it('each folder imports only folders below it', () => {
    const rank = new Map<string, number>(RANK.map((name, i) => [name, i]));
    const upward: string[] = [];
    for (const [from, edges] of graph) {
      for (const [to, example] of edges) {
        if ((rank.get(to) ?? -1) >= (rank.get(from) ?? -1)) upward.push(`${from} imports ${to} (${example})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('docs/architecture.md lists the same rank', () => {
    const doc = fs.readFileSync(path.resolve(SRC, '../docs/architecture.md'), 'utf8');
    const line = doc.split('\n').find((l) => l.startsWith('Rank (lowest first):'));
    expect(line, 'docs/architecture.md needs a "Rank (lowest first): …" line').toBeDefined();
    const documented = [...(line as string).matchAll(/`([a-z-]+)`/g)].map((m) => m[1]);
    expect(documented).toEqual([...RANK]);
  });
});

describe('only the CLI imports cli/', () => {
  it('nothing under src/ outside cli/ imports a cli/ module', () => {
    const offenders = files.flatMap((f) => (f.folder === 'cli' ? [] : f.local.filter((t) => t.startsWith('cli/')).map((t) => `${f.rel} → ${t}`)));
    expect(offenders).toEqual([]);
  });
});

describe('prompts live in cli/', () => {
  it('no file outside cli/ imports node:readline (a question to a person is asked by the CLI, through an injected hook elsewhere)', () => {
    const offenders = files.filter((f) => f.folder !== 'cli' && f.external.some((spec) => spec.replace(/^node:/, '').startsWith('readline'))).map((f) => f.rel);
    expect(offenders).toEqual([]);
  });
});

describe('the pure floors touch no file system, process or network', () => {
  it('edit/ and formats/ import no I/O module and nothing of workspace/', () => {
    const offenders: string[] = [];
    for (const f of files.filter((file) => PURE_FLOORS.includes(file.folder))) {
      for (const spec of f.external) {
        if (IO_MODULES.includes(spec.replace(/^node:/, ''))) offenders.push(`${f.rel} imports ${spec}`);
      }
      for (const target of f.local) if (target.startsWith('workspace/')) offenders.push(`${f.rel} imports ${target}`);
    }
    expect(offenders).toEqual([]);
  });
});

describe('source files stay small', () => {
  it(`no file of src/ is over ${MAX_LINES} lines (except those BEING_SPLIT)`, () => {
    const long = files
      .map((f) => ({ rel: f.rel, lines: f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0) }))
      .filter((f) => f.lines > MAX_LINES && !BEING_SPLIT.has(f.rel))
      .map((f) => `${f.rel}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it('BEING_SPLIT names only files that exist and are still over the limit', () => {
    const stale = [...BEING_SPLIT].filter((rel) => {
      const f = files.find((file) => file.rel === rel);
      return !f || f.text.split('\n').length - 1 <= MAX_LINES;
    });
    expect(stale, 'remove these from BEING_SPLIT').toEqual([]);
  });
});

/**
 * What a run is offered is built in one place, `toolsetFor` (src/tools/toolset.ts),
 * from the tools' own metadata. The config floor parses a file before any tool
 * exists and keeps its copy of the names (pinned equal to the toolset's by
 * test/tools/toolset.test.ts); nothing else lists tool names or rewrites
 * allowed_tools. Found in the syntax tree, so a list in a comment or a prompt's
 * prose is not one.
 */
const TOOLSET_MODULE = 'tools/toolset.ts';
const NAME_COPIES = new Set(['config/config.ts', 'config/defaults.ts']);

describe('only toolsetFor builds a toolset', () => {
  const toolNames = new Set<string>(KNOWN_TOOL_NAMES);
  const offenders = (visit: (node: TS.Node, rel: string, out: string[]) => void, exempt: ReadonlySet<string>): string[] => {
    const out: string[] = [];
    for (const { rel } of files) {
      if (exempt.has(rel)) continue;
      const source = treeOf({ rel });
      const f = { rel };
      const walk = (node: TS.Node): void => {
        visit(node, f.rel, out);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    return out;
  };

  it('no module but the config floor writes a list of tool names (two or more in one array or set)', () => {
    const found = offenders(
      (node, rel, out) => {
        if (!ts.isArrayLiteralExpression(node)) return;
        const names = node.elements.filter((e) => ts.isStringLiteralLike(e) && toolNames.has(e.text));
        if (names.length >= 2) out.push(`${rel}:${ts.getLineAndCharacterOfPosition(node.getSourceFile(), node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`);
      },
      new Set([TOOLSET_MODULE, ...NAME_COPIES]),
    );
    expect(found).toEqual([]);
  });

  it('no module but the toolset rewrites allowed_tools of a config ({ ...constraints, allowed_tools })', () => {
    const found = offenders(
      (node, rel, out) => {
        if (!ts.isObjectLiteralExpression(node)) return;
        const rewrites = node.properties.some((p) => ts.isSpreadAssignment(p)) && node.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === 'allowed_tools');
        if (rewrites) out.push(`${rel}:${ts.getLineAndCharacterOfPosition(node.getSourceFile(), node.getStart()).line + 1}`);
      },
      new Set([TOOLSET_MODULE]),
    );
    expect(found).toEqual([]);
  });

  it('only the toolset module defines toolsetFor, and no module defines an offeredTools of its own', () => {
    const found = offenders(
      (node, rel, out) => {
        if ((ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node)) && node.name && ts.isIdentifier(node.name) && ['toolsetFor', 'offeredTools'].includes(node.name.text)) out.push(`${rel}: ${node.name.text}`);
      },
      new Set([TOOLSET_MODULE]),
    );
    expect(found).toEqual([]);
  });
});

/**
 * The agent loop serves every mode and knows none (issue 30): a mode speaks
 * through the loop's one extension point (`afterCall`, agent/loop/after-call.ts)
 * and through the run's closer, never through a branch of the loop. Read in
 * the syntax tree: a mode's name in a comment is prose, in a string literal it
 * is a branch (or a status only one mode has).
 */
const LOOP_FILES = (rel: string): boolean => rel === 'agent/loop.ts' || rel.startsWith('agent/loop/');

describe('the agent loop has no mode-specific branches', () => {
  const loop = files.filter((f) => LOOP_FILES(f.rel));

  it('the loop is where the test looks for it', () => {
    expect(loop.map((f) => f.rel)).toContain('agent/loop.ts');
    expect(loop.map((f) => f.rel)).toContain('agent/loop/after-call.ts');
  });

  it('names no mode in a string literal (no mode compared, no mode-only status such as controlled)', () => {
    const modes = new Set<string>(RUN_MODES);
    const found: string[] = [];
    for (const f of loop) {
      const source = treeOf(f);
      const walk = (node: TS.Node): void => {
        if (ts.isStringLiteralLike(node) && modes.has(node.text)) found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: '${node.text}'`);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    expect(found).toEqual([]);
  });

  it('imports neither a mode (controlled mode, the Editor, the agent session that picks a mode) nor the prompts of one', () => {
    const modeModules = (target: string): boolean => target === 'agent/controlled.ts' || target === 'agent/controlled-tool.ts' || target === 'agent/session.ts' || target.startsWith('agent/editor/') || target.startsWith('agent/prompts/');
    const found = loop.flatMap((f) => f.local.filter(modeModules).map((t) => `${f.rel} → ${t}`));
    expect(found).toEqual([]);
  });

  it('reads no mode from its options: it has no mode option and no option of one mode only', () => {
    const loopFile = loop.find((f) => f.rel === 'agent/loop.ts');
    const source = treeOf(loopFile ?? { rel: 'agent/loop.ts' });
    const options = source.statements.find((s): s is TS.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'AgentRunOptions');
    const names = options?.members.map((m) => (m.name && ts.isIdentifier(m.name) ? m.name.text : '')) ?? [];
    expect(names).toContain('afterCall');
    expect(names.filter((n) => /mode|controlled|editor|recordEnd/i.test(n))).toEqual([]);
  });
});

/**
 * The failure policy of a run is read from its profile, and the profile maps
 * `constraints.on_violation` to it once (runs/profile.ts): no other module
 * compares on_violation to decide what happens to a failed run's work.
 */
describe('only the run profile turns on_violation into a decision', () => {
  it('no module but runs/profile.ts compares constraints.on_violation', () => {
    const found: string[] = [];
    for (const f of files) {
      if (f.rel === 'runs/profile.ts') continue;
      const source = treeOf(f);
      const reads = (e: TS.Expression): boolean => (ts.isPropertyAccessExpression(e) && e.name.text === 'on_violation') || (ts.isIdentifier(e) && e.text === 'onViolation');
      const walk = (node: TS.Node): void => {
        if (
          ts.isBinaryExpression(node) &&
          [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(node.operatorToken.kind) &&
          (reads(node.left) || reads(node.right))
        ) {
          found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}`);
        }
        if (ts.isSwitchStatement(node) && reads(node.expression)) found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}`);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    expect(found).toEqual([]);
  });
});

/**
 * Options bags stay small: a bag of 15–22 fields is context taken apart at every entry point (issue 30). Fields are
 * counted as TypeScript sees the type (inherited and picked fields included), so `extends Pick<…>` hides none.
 */
const MAX_OPTION_FIELDS = 12;
/**
 * The bags other branches of the same issue are bringing down (the agent's run options, the tool runner's). The lead
 * empties this set when those branches merge; no type is to be added to it.
 */
const OPTIONS_BEING_SPLIT = new Set<string>();

describe('options types stay small', () => {
  it(`no exported *Options interface or type alias in src/ has more than ${MAX_OPTION_FIELDS} fields`, () => {
    const program = buildProgram();
    const checker = program.getTypeChecker();
    const sizes: string[] = [];
    for (const sf of program.getSourceFiles()) {
      if (!sf.fileName.startsWith(SRC + path.sep)) continue;
      const rel = path.relative(SRC, sf.fileName).split(path.sep).join('/');
      for (const st of sf.statements) {
        if (!(ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) || !st.name.text.endsWith('Options')) continue;
        if (!st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
        const fields = checker.getPropertiesOfType(checker.getTypeAtLocation(st.name)).length;
        if (fields > MAX_OPTION_FIELDS) sizes.push(`${rel} ${st.name.text} (${fields} fields)`);
      }
    }
    const offenders = sizes.filter((s) => !OPTIONS_BEING_SPLIT.has(s.replace(/ \(\d+ fields\)$/, '')));
    expect(offenders, 'group related fields into a value the caller already has (the Project, the RunProfile), or split the call').toEqual([]);
    // The allowance lapses as each bag is brought down: a name left in the set after its type is small fails here.
    const stillLarge = new Set(sizes.map((s) => s.replace(/ \(\d+ fields\)$/, '')));
    expect(
      [...OPTIONS_BEING_SPLIT].filter((name) => !stillLarge.has(name)),
      'take the type out of OPTIONS_BEING_SPLIT',
    ).toEqual([]);
  });
});

/**
 * One route to a write (issue 25, "the construction"): every route — the
 * runner's write tools, controlled mode, the CLI, the library, the hooks —
 * goes through the change pipeline's `plan` and `commit` (apply/pipeline.ts).
 * Its internals — the request planner/committer (apply/apply-requests.ts),
 * the engine's planFile / tryFastExactEdit, and FileView's commit of writes —
 * are called nowhere else, so no route can assemble safety rules of its own.
 */
const PIPELINE = 'apply/pipeline.ts';
const PLANNER = 'apply/apply-requests.ts';
/** Writers of editwarden's own records (not an agent's request): the Editor's context files and the controlled-edit report. */
const OWN_RECORD_WRITERS = new Set(['agent/editor/records.ts', 'report/controlled-edit.ts']);

describe('one change pipeline: plan → commit is the only route to a write', () => {
  const calls = (named: (callee: string, args: number) => boolean, exempt: (rel: string) => boolean): string[] => {
    const out: string[] = [];
    for (const { rel } of files) {
      if (exempt(rel)) continue;
      const source = treeOf({ rel });
      const walk = (node: TS.Node): void => {
        if (ts.isCallExpression(node)) {
          const callee = ts.isIdentifier(node.expression) ? node.expression.text : ts.isPropertyAccessExpression(node.expression) ? `.${node.expression.name.text}` : '';
          if (named(callee, node.arguments.length)) out.push(`${rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: ${node.getText().slice(0, 60)}`);
        }
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    return out;
  };

  it('a route opens its project through host/project.ts (openProject / openProjectAt): no other module calls openWorkspace', () => {
    // The library re-exports it; checkpoint, undo and report (the net change) work on the history alone (no config, no plan), read-only commands use openReadOnly.
    const allowed = new Set(['host/project.ts', 'index.ts', 'cli/commands/checkpoint.ts', 'cli/commands/undo.ts', 'cli/commands/report.ts']);
    expect(
      calls(
        (callee) => callee === 'openWorkspace',
        (rel) => allowed.has(rel) || rel.startsWith('workspace/'),
      ),
    ).toEqual([]);
  });

  it('only the pipeline imports the request planner/committer (apply/apply-requests.ts)', () => {
    const importers = files.filter((f) => f.rel !== PIPELINE && f.local.includes(PLANNER)).map((f) => f.rel);
    expect(importers).toEqual([]);
  });

  it("only the planner calls the engine's planFile / tryFastExactEdit (the pure floor's own helpers aside)", () => {
    expect(
      calls(
        (callee) => callee === 'planFile' || callee === 'tryFastExactEdit',
        (rel) => rel === PLANNER || rel.startsWith('edit/'),
      ),
    ).toEqual([]);
  });

  it("no module outside workspace/ commits writes to a view (ws.commit(tx, writes)) but the pipeline and editwarden's own record writers", () => {
    const exempt = (rel: string): boolean => rel.startsWith('workspace/') || rel === PIPELINE || rel === PLANNER || OWN_RECORD_WRITERS.has(rel);
    expect(calls((callee, args) => callee === '.commit' && args === 2, exempt)).toEqual([]);
  });

  it("the routes call the pipeline: the write tools (and their client-commit form, a hook's native edit), controlled mode, the CLI edit command and the library", () => {
    const usesPipeline = (rel: string): boolean => files.find((f) => f.rel === rel)?.local.some((t) => t === PIPELINE || t === 'apply/apply-reply.ts') ?? false;
    for (const route of [
      'tools/edit-file.ts',
      'tools/write-file.ts',
      'tools/apply-patch.ts',
      'tools/edits.ts',
      'agent/controlled.ts',
      'agent/controlled-tool.ts',
      'tools/client-commit.ts',
      'cli/commands/edit.ts',
      'cli/commands/apply.ts',
      'index.ts',
    ]) {
      expect({ route, usesPipeline: usesPipeline(route) }).toEqual({ route, usesPipeline: true });
    }
  });
});

describe('one ledger: runs/ledger.ts counts every route', () => {
  const newGuards = (): string[] => {
    const out: string[] = [];
    for (const { rel } of files) {
      const source = treeOf({ rel });
      const walk = (node: TS.Node): void => {
        if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ConstraintGuard') out.push(rel);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    return out;
  };

  it('exactly one `new ConstraintGuard` in src/, in the ledger (guardFor)', () => {
    expect(newGuards()).toEqual(['runs/ledger.ts']);
  });

  it('no ledger logic outside runs/: no module but the ledger checks or records changes on a guard, or names the sessions folder', () => {
    const out: string[] = [];
    for (const { rel, text } of files) {
      if (rel.startsWith('runs/') || rel.startsWith('guard/')) continue;
      const source = treeOf({ rel });
      const walk = (node: TS.Node): void => {
        if (ts.isPropertyAccessExpression(node) && (node.name.text === 'checkChanges' || node.name.text === 'recordChanges')) out.push(`${rel}: ${node.getText()}`);
        ts.forEachChild(node, walk);
      };
      walk(source);
      if (/['"`]sessions['"`/]/.test(text)) out.push(`${rel}: names the sessions folder`);
    }
    expect(out).toEqual([]);
  });

  it('the hook routes are calls on the hook Run: vet.ts and mcp-call.ts reach the runner through hook-run.ts and neither plan nor charge themselves', () => {
    for (const rel of ['integrations/vet.ts', 'integrations/mcp-call.ts']) {
      const f = files.find((x) => x.rel === rel);
      const own = f?.local.filter((t) => t === PIPELINE || t === PLANNER || t === 'tools/edits.ts') ?? [];
      expect({ rel, runner: f?.local.includes('integrations/hook-run.ts'), own, opensLedger: /\bopenLedger\b|\.prepare\(/.test(f?.text ?? '') }).toEqual({ rel, runner: true, own: [], opensLedger: false });
    }
  });
});

/**
 * One record writer (issue 41): the root's event log is the record of every route, written by runs/events.ts alone
 * (its files opened for append by runs/event-lines.ts, for the log and the rotation index); a hook's facts are
 * written once, by runs/hook-records.ts, and `.editwarden/hooks/changes.jsonl` is only a view of the log
 * (runs/hook-view.ts `hookRecords`). Any other append in src/ is to a file of its own, named here with what it is.
 */
const EVENT_LOG_WRITER = 'runs/events.ts';
const OWN_APPENDS = new Map([
  ['runs/event-lines.ts', 'opens the event log and its rotation index for append (openForAppend), for runs/events.ts and runs/events-index.ts'],
  ['runs/records.ts', "a run's calls.jsonl, in its run folder"],
  ['agent/transcript.ts', "a session's transcript.jsonl, in its run folder"],
  ['cli/hook-socket.ts', "the hook's timing trace, where EDITWARDEN_HOOK_TRACE points"],
  ['cli/commands/report.ts', "GitHub's job summary ($GITHUB_STEP_SUMMARY)"],
]);

describe('one record writer: the event log, written by one module', () => {
  /** Every place a file of src/ appends: an appendFileSync/appendFile call, an O_APPEND flag, a flag 'a' / 'a+'. */
  const appends = (): string[] => {
    const out: string[] = [];
    for (const f of files) {
      const source = treeOf(f);
      const at = (node: TS.Node): string => `${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}`;
      const walk = (node: TS.Node): void => {
        if (ts.isCallExpression(node)) {
          const callee = ts.isIdentifier(node.expression) ? node.expression.text : ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : '';
          if (callee === 'appendFileSync' || callee === 'appendFile') out.push(at(node));
        }
        if (ts.isPropertyAccessExpression(node) && node.name.text === 'O_APPEND') out.push(at(node));
        if (ts.isPropertyAssignment(node) && node.name.getText() === 'flag' && ts.isStringLiteral(node.initializer) && node.initializer.text.startsWith('a')) out.push(at(node));
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    return out;
  };

  it("no module appends to a file but the event log's own and the few that append to a file of their own", () => {
    const found = appends();
    expect(found.filter((where) => !OWN_APPENDS.has(where.split(':')[0] as string))).toEqual([]);
    // Each exemption still appends (a stale one would hide a new writer behind its name).
    for (const rel of OWN_APPENDS.keys()) expect({ rel, appends: found.some((w) => w.startsWith(`${rel}:`)) }).toEqual({ rel, appends: true });
  });

  it('only runs/events.ts (the log) and runs/events-index.ts (its index) open a file of the log for append', () => {
    const opener = files.filter((f) => f.rel !== 'runs/event-lines.ts' && /\bopenForAppend\b/.test(f.text)).map((f) => f.rel);
    expect(opener.sort()).toEqual(['runs/events-index.ts', EVENT_LOG_WRITER]);
  });

  it("no module names .editwarden/hooks/changes.jsonl in code: the hooks' records are the view runs/hook-view.ts reads from the log", () => {
    const found: string[] = [];
    for (const f of files) {
      const source = treeOf(f);
      const walk = (node: TS.Node): void => {
        if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) && /changes\.jsonl/.test(node.getText())) found.push(f.rel);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    expect(found).toEqual([]);
  });

  it("a hook's native edits, refusals and guarded commands are recorded by runs/hook-records.ts alone (no other module builds a hook's event)", () => {
    // Every module outside runs/ that records an event reaches appendEvent/recordEvent; none may do it for a hook or the guarded shell.
    const hookWriters = files.filter((f) => !f.rel.startsWith('runs/') && /\b(appendEvent|recordEvent)\b/.test(f.text) && /via: 'hook'|via: 'shell'|hookRoute\(/.test(f.text)).map((f) => f.rel);
    expect(hookWriters).toEqual([]);
    expect(files.find((f) => f.rel === 'runs/hook-records.ts')?.text).toMatch(/export function recordHookEdit[\s\S]*export function recordHookCommand/);
    // The hook that writes never loads the log's reader: the view is a module of its own.
    expect(files.find((f) => f.rel === 'runs/hook-records.ts')?.local).not.toContain('runs/events-read.ts');
  });
});

/**
 * The Project travels whole (issue 41): opened once at the door (host/project.ts) and handed on as one value —
 * `ToolRunner.start({ project, run, toolset })`, the agent session, the Editor, controlled mode — never taken apart
 * into pieces that each entry point packs again; its edit options are made there, once.
 */
describe('the Project travels whole', () => {
  const where = (source: TS.SourceFile, node: TS.Node, rel: string): string => `${rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`;
  const found = (match: (node: TS.Node) => boolean, exempt: (rel: string) => boolean = () => false): string[] => {
    const out: string[] = [];
    for (const { rel } of files) {
      if (exempt(rel)) continue;
      const source = treeOf({ rel });
      const walk = (node: TS.Node): void => {
        if (match(node)) out.push(where(source, node, rel));
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    return out;
  };

  it("editOptionsFromConfig is called only in host/project.ts: every other route reads the project's applyOptions", () => {
    const calls = found(
      (node) => ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'editOptionsFromConfig',
      (rel) => rel === 'host/project.ts',
    );
    expect(calls).toEqual([]);
    // And it is called there (the rule is not met by the call having moved somewhere this test does not read).
    expect(files.find((f) => f.rel === 'host/project.ts')?.text).toMatch(/editOptionsFromConfig\(/);
  });

  it('no AgentProject and no OpenRoot: no type carries the pieces of a project beside it', () => {
    expect(found((node) => ts.isIdentifier(node) && (node.text === 'AgentProject' || node.text === 'OpenRoot'))).toEqual([]);
  });

  it("every ToolRunner.start in src/ is handed the project whole (the pieces' form is the library's deprecated one)", () => {
    const checker = buildProgram().getTypeChecker();
    const starts: string[] = [];
    const pieces = found((node) => {
      if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
      if (node.expression.name.text !== 'start' || !ts.isIdentifier(node.expression.expression) || node.expression.expression.text !== 'ToolRunner') return false;
      starts.push(node.getText().slice(0, 40));
      const arg = node.arguments[0];
      const type = arg ? checker.getTypeAtLocation(arg) : undefined;
      return !type?.getProperty('project') || ['ws', 'transactions', 'apply', 'tools'].some((piece) => type.getProperty(piece) !== undefined);
    });
    expect(pieces).toEqual([]);
    // The entry points that start runners are read (exec, the MCP session, the agent session, the Editor): the check is not empty.
    expect(starts.length).toBeGreaterThanOrEqual(6);
  });
});

describe('the protected set is the one spelling of a protected name', () => {
  /**
   * Literals of src/ that name a protected path for another reason than deciding what is protected, each with why.
   * Every other module takes the name from config/protected-set.ts (STATE_DIR, GIT_DIR, CONFIG_FILE, the members).
   */
  const ALLOWED: Readonly<Record<string, { literals: readonly string[]; why: string }>> = {
    'sandbox/policy.ts': { literals: ['.claude', '.codex', '.gemini'], why: "HOME's credential folders of Claude Code, Codex and Gemini CLI (HOME_SECRETS, hidden from commands), not the project's settings" },
    'integrations/claude.ts': { literals: ['.claude', '.claude/settings.json', '.claude/settings.local.json', '.mcp.json'], why: "the files Claude Code's `init` writes: the client's own file names, each inside its members of the set" },
    'integrations/gemini.ts': { literals: ['.gemini', '.gemini/settings.json'], why: "the file Gemini CLI's `init` writes, inside its member" },
    'integrations/qwen.ts': { literals: ['.qwen', '.qwen/settings.json'], why: "the file Qwen Code's `init` writes, inside its member" },
    'integrations/cursor.ts': { literals: ['.cursor', '.cursor/hooks.json', '.cursor/mcp.json'], why: "the files Cursor's `init` writes, inside its member" },
    'integrations/codex.ts': { literals: ['.codex', '.codex/config.toml'], why: "the file Codex's `init` writes, inside its member" },
    'integrations/codex-trust.ts': { literals: ['.codex', '~/.codex/config.toml'], why: "Codex's own trust entry: the person's ~/.codex/config.toml and the project's .codex folder as Codex names them" },
    'integrations/copilot.ts': { literals: ['.github/hooks/editwarden.json'], why: "the file Copilot CLI's `init` writes, inside its member" },
    'integrations/opencode.ts': { literals: ['opencode.json'], why: "the file opencode's `init` writes (a member)" },
    'integrations/opencode-plugin.ts': { literals: ['.opencode/plugins/editwarden.js'], why: "the plugin file opencode's `init` writes, inside its member" },
  };
  const names = PROTECTED_MEMBERS.map((m) => m.path.toLowerCase().split('/'));
  /** Whether a literal spells a path (no spaces: prose that mentions a name is a message, not a path) naming a member or a path inside one, at any depth. */
  const namesMember = (text: string): boolean => {
    if (/\s/.test(text)) return false;
    const segments = text.toLowerCase().split('/');
    return names.some((name) => segments.some((_, i) => name.every((part, j) => segments[i + j] === part)));
  };

  it('no protected name is a string literal in src/ outside config/protected-set.ts (ALLOWED: each other reason, with why)', () => {
    const found: string[] = [];
    for (const f of files) {
      // The set's table, and its clients' rows (config/client-settings.ts, which the table spreads).
      if (f.rel === 'config/protected-set.ts' || f.rel === 'config/client-settings.ts') continue;
      const source = treeOf(f);
      const allowed = new Set(ALLOWED[f.rel]?.literals ?? []);
      const walk = (node: TS.Node): void => {
        const text = ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node) ? node.text : null;
        if (text !== null && namesMember(text) && !allowed.has(text)) found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: '${text}'`);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    // Take the name from config/protected-set.ts (STATE_DIR, GIT_DIR, CONFIG_FILE, a member); only a literal about something else goes in ALLOWED, with why.
    expect(found).toEqual([]);
  });

  it('a path is refused for what it names by the Policy alone: no module but workspace/policy.ts builds an E_DENIED_PATH refusal, except these, each about something else', () => {
    const OTHER_DENIALS: Readonly<Record<string, string>> = {
      'agent/editor/records.ts': "an Editor record name that does not land directly in agent/ (the record's own rule, after the Policy resolved the path)",
      'tools/command-charge.ts': "a client's command that changed protected files: the record of what the Policy's governedPaths found, after the fact",
      'integrations/wrap-steps.ts': "a wrapped agent that changed protected files: the log's words for what the Policy's governedPaths found, after the fact",
    };
    const builders = files.filter((f) => /ErrorCode\.DENIED_PATH\b/.test(f.text)).map((f) => f.rel);
    expect(builders.filter((rel) => rel !== 'workspace/policy.ts' && OTHER_DENIALS[rel] === undefined)).toEqual([]);
    expect(builders).toContain('workspace/policy.ts');
    for (const rel of Object.keys(OTHER_DENIALS)) expect(builders, rel).toContain(rel);
  });

  it('the check has teeth, and ALLOWED names only files of src/ with a reason', () => {
    for (const spelled of ['.git', 'vendor/lib/.git/config', '.editwarden/runs', '.EDITWARDEN.YML', '.claude/settings.json', 'node_modules/editwarden']) expect(namesMember(spelled), spelled).toBe(true);
    for (const other of ['.gitignore', 'src/a.ts', 'node_modules/**', 'Leave .git/ alone.']) expect(namesMember(other), other).toBe(false);
    const rels = new Set(files.map((f) => f.rel));
    for (const [rel, entry] of Object.entries(ALLOWED)) {
      expect(rels.has(rel), rel).toBe(true);
      expect(entry.why.length, rel).toBeGreaterThan(20);
    }
  });
});

/**
 * A format is one record (issue 41): its name is spelled in its own module
 * (formats/<name>.ts, the parser that stamps it on its requests' sources, and
 * formats/<name>-format.ts, the record) and nowhere else — the list
 * (formats/list.ts) holds the records, and every other module reaches a name
 * through a record or the derived `FormatName`. Read with the type checker: a
 * string literal is a format name where it is checked against a type that
 * accepts every format name (FormatName, `FormatName | 'auto'`, a request
 * source's format), compared with a value of such a type, or spelled beside
 * another format name in a union type. The same word in another vocabulary
 * (the `json` language id, the `active-edit` grant of a tool) is not one.
 */
describe('a format is one record: no format name spelled outside its module', () => {
  /** The json format's one request schema lives on the edit floor (the CLI, the tools and the MCP server share it, formats/json.ts says so). */
  const OWNERS: Record<string, readonly string[]> = { json: ['edit/request-json.ts'] };
  const ownedBy = (rel: string, name: string): boolean => rel === `formats/${name}.ts` || rel === `formats/${name}-format.ts` || (OWNERS[name] ?? []).includes(rel);

  it('no string literal names a format outside that format’s module (a record’s `.name` or `FormatName` instead)', async () => {
    const { FORMAT_NAMES } = await import('../../src/formats/index.js');
    const names = new Set<string>(FORMAT_NAMES);
    const checker = buildProgram().getTypeChecker();
    /** The type accepts every format name: it is FormatName or wider, but not any string. */
    const takesEveryFormat = (type: TS.Type | undefined): boolean => {
      if (!type) return false;
      const members = type.isUnion() ? type.types : [type];
      const literals = new Set(members.filter((t) => t.isStringLiteral()).map((t) => (t as TS.StringLiteralType).value));
      return [...names].every((n) => literals.has(n));
    };
    const found: string[] = [];
    for (const f of files) {
      const source = treeOf(f);
      const walk = (node: TS.Node): void => {
        if (ts.isStringLiteralLike(node) && names.has(node.text) && !ownedBy(f.rel, node.text)) {
          const parent = node.parent;
          let spelled = false;
          if (ts.isLiteralTypeNode(parent)) {
            // A union type spelling two format names is a copy of the list.
            const union = parent.parent;
            spelled = ts.isUnionTypeNode(union) && union.types.filter((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteralLike(t.literal) && names.has(t.literal.text)).length >= 2;
          } else if (
            ts.isBinaryExpression(parent) &&
            [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(parent.operatorToken.kind)
          ) {
            spelled = takesEveryFormat(checker.getTypeAtLocation(parent.left === node ? parent.right : parent.left));
          } else if (ts.isCaseClause(parent)) {
            spelled = takesEveryFormat(checker.getTypeAtLocation(parent.parent.parent.expression));
          } else if (ts.isExpression(node)) {
            spelled = takesEveryFormat(checker.getContextualType(node));
          }
          if (spelled) found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: '${node.text}'`);
        }
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    expect(found).toEqual([]);
  });

  it('the format records are where the test looks for them: one <name>-format.ts per name, each in the list', () => {
    const list = files.find((f) => f.rel === 'formats/list.ts');
    expect(list?.local.filter((t) => t.endsWith('-format.ts')).sort()).toEqual(
      files
        .filter((f) => /^formats\/[a-z-]+-format\.ts$/.test(f.rel))
        .map((f) => f.rel)
        .sort(),
    );
  });
});

/**
 * A client is one record (issue 41): `ClientIntegration` (integrations/client.ts) names the client's settings files
 * (its row of config/client-settings.ts, which the protected set spreads), the hook-input field(s) of its session id
 * (read by integrations/session-id.ts alone) and its tool names (read from its record everywhere else).
 */
describe('a client is one record', () => {
  const clients = Object.values(CLIENTS);
  /** The files that belong to a client's module: integrations/<name>.ts and its helpers integrations/<name>-*.ts. */
  const ownerOf = (rel: string): string | undefined => clients.find((c) => rel === `integrations/${c.name}.ts` || rel.startsWith(`integrations/${c.name}-`))?.name;
  const literals = (visit: (text: string, rel: string, line: number) => void): void => {
    for (const { rel } of files) {
      const tree = treeOf({ rel });
      const walk = (node: TS.Node): void => {
        if (ts.isStringLiteralLike(node)) visit(node.text, rel, ts.getLineAndCharacterOfPosition(tree, node.getStart()).line + 1);
        ts.forEachChild(node, walk);
      };
      walk(tree);
    }
  };

  it('every client has its row of settings, and every file its init writes is in the protected set through that row', () => {
    expect(Object.keys(CLIENTS).sort()).toEqual(Object.keys(CLIENT_SETTINGS).sort());
    const root = path.resolve('/project');
    const uncovered: string[] = [];
    for (const client of clients) {
      const row: readonly ProtectedMember[] = CLIENT_SETTINGS[client.name];
      for (const member of row) if (!PROTECTED_MEMBERS.some((m) => m.path === member.path && m.folder === member.folder)) uncovered.push(`${client.name}: ${member.path} is not in PROTECTED_MEMBERS`);
      for (const file of client.configFiles(root, { configFile: 'tools/editwarden.yml' })) {
        const rel = path.relative(root, file.path).split(path.sep).join('/');
        if (memberCovering(rel, row) === null) uncovered.push(`${client.name}: ${rel} (written by init) is not covered by its row of config/client-settings.ts`);
      }
    }
    expect(uncovered).toEqual([]);
  });

  it("a client's session id is read by integrations/session-id.ts alone (no other module names a session field of a hook input)", () => {
    const fields = new Set(clients.flatMap((c) => c.sessionFields));
    expect(fields.size).toBeGreaterThan(0);
    /** Where a name of the same spelling is not a client's session: each with its reason. */
    const OTHER_SESSIONS: Record<string, string> = {
      'mcp/http.ts': "the MCP Streamable HTTP transport's own session id (the SDK's `sessionId`), not a client hook input",
    };
    const found: string[] = [];
    for (const { rel } of files) {
      // The reader itself, and each client's record, which declares its field(s).
      if (rel === 'integrations/session-id.ts' || ownerOf(rel) !== undefined || OTHER_SESSIONS[rel] !== undefined) continue;
      const tree = treeOf({ rel });
      const walk = (node: TS.Node): void => {
        const name = ts.isPropertyAccessExpression(node)
          ? node.name.text
          : ts.isStringLiteralLike(node)
            ? node.text
            : ts.isBindingElement(node) && node.propertyName && ts.isIdentifier(node.propertyName)
              ? node.propertyName.text
              : undefined;
        if (name !== undefined && fields.has(name)) found.push(`${rel}:${ts.getLineAndCharacterOfPosition(tree, node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`);
        ts.forEachChild(node, walk);
      };
      walk(tree);
    }
    expect(found).toEqual([]);
  });

  it("no client's tool name is spelled outside its own module (the rest reads the record's tools)", () => {
    /** Client tool names that are also editwarden's own words, with their own meaning there: not a client's tool when spelled elsewhere. */
    const EDITWARDEN_WORDS = new Set([
      ...KNOWN_TOOL_NAMES, // write_file, apply_patch: editwarden's own tools (Gemini CLI, Qwen Code and Codex reuse the names)
      'edit', // an EditRequest action, an event kind, a checkpoint kind
      'create', // an EditRequest action
      'write', // a FileWrite kind
      'replace', // an AST action, an active-edit action
      'shell', // an event route (via: 'shell'), editwarden's own command
      'bash', // the AST language of shell scripts
    ]);
    /** A client's tool name spelled elsewhere on purpose, by file and name: each with its reason. */
    const ALLOWED: Record<string, string> = {
      'cli/commands/shell.ts Bash': "the default of `editwarden shell --tool`, the name the person's Claude Code session gives its shell",
      'ast/languages/scripting.ts Bash': "the language's label, not a tool",
      'formats/active-edit.ts Edit': "a header of editwarden's active-edit format",
    };
    const owners = new Map<string, Set<string>>();
    for (const c of clients) {
      for (const name of [...Object.keys(c.tools.edit), ...(c.tools.shell ?? []), ...(c.tools.refusedShell ?? [])]) {
        if (EDITWARDEN_WORDS.has(name)) continue;
        owners.set(name, (owners.get(name) ?? new Set()).add(c.name));
      }
    }
    const prefixes = clients.flatMap((c) => (c.tools.mcpPrefix !== undefined ? [[c.tools.mcpPrefix, c.name] as const] : []));
    const found: string[] = [];
    literals((text, rel, line) => {
      const owner = ownerOf(rel);
      const of = owners.get(text);
      if (of !== undefined && !(owner !== undefined && of.has(owner)) && ALLOWED[`${rel} ${text}`] === undefined) found.push(`${rel}:${line}: '${text}' (${[...of].join(', ')})`);
      for (const [prefix, client] of prefixes) if (text.startsWith(prefix) && owner !== client) found.push(`${rel}:${line}: '${text}' (${client}'s MCP prefix)`);
    });
    expect(found).toEqual([]);
    // Each allowance still names a real spelling.
    const seen = new Set<string>();
    literals((text, rel) => seen.add(`${rel} ${text}`));
    expect(Object.keys(ALLOWED).filter((k) => !seen.has(k))).toEqual([]);
  });

  it("the CLI's help names every client where it lists them (init: all; shell: every client whose shell is rewritten)", () => {
    const text = (rel: string): string => files.find((f) => f.rel === rel)?.text ?? '';
    const init = /description: '[^']*\(([a-z, ]+)\)\.',\n\s*load: async \(\) => \(await import\('\.\/commands\/init\.js'\)\)/.exec(text('cli/main.ts'))?.[1];
    expect(init?.split(', ').sort()).toEqual(Object.keys(CLIENTS).sort());
    const shell = /--client <name>', '[^(']*\(([a-z, ]+)\)'/.exec(text('cli/commands/shell.ts'))?.[1];
    expect(shell?.split(', ').sort()).toEqual(
      clients
        .filter((c) => c.shell !== undefined)
        .map((c) => c.name)
        .sort(),
    );
  });

  it('a client rewrites its shell exactly when its record names shell tools, and every client answers in its own hook protocol', () => {
    for (const c of clients) {
      expect({ client: c.name, rewrites: c.shell !== undefined }).toEqual({ client: c.name, rewrites: (c.tools.shell?.length ?? 0) > 0 });
      expect({ client: c.name, events: Object.keys(c.events).length > 0 }).toEqual({ client: c.name, events: true });
    }
  });
});

/**
 * One vocabulary per question (issue 41): how a run ended (`RunStatus`, with the modes' parts of it), where the runner
 * is (`RunnerState`), metrics.json's summary status (`SummaryStatus`) and what became of a run's changes
 * (`ChangesOutcome`) are spelled as string literals in runs/outcome.ts alone; everything else derives from them.
 * Other questions keep their own words where they are asked, each named here with its question.
 */
const STATUS_VOCABULARY = 'runs/outcome.ts';
const OTHER_QUESTIONS = new Map([
  ['edit/types.ts ResultStatus', "an edit request's result (applied, dry-run, rejected, rolled-back)"],
  ['tools/calls.ts CallStatus', "one tool call's (ok, failed, refused, declined)"],
  ['workspace/transaction.ts TransactionState', "a transaction's"],
  ['config/trust-store.ts TrustState', "a config file's trust"],
  ['report/event-summary.ts Outcome', 'the worst thing an event-log report shows'],
]);
/** The floors that describe a run: a status, state or outcome there names a vocabulary instead of spelling words of its own. */
const RUN_FLOORS = (rel: string): boolean => rel.startsWith('runs/') || rel.startsWith('tools/');

describe('one vocabulary per question: the status words of a run live in runs/outcome.ts', () => {
  const literalUnion = (t: TS.TypeNode | undefined): boolean => t !== undefined && ts.isUnionTypeNode(t) && t.types.every((m) => ts.isLiteralTypeNode(m) && ts.isStringLiteral(m.literal)) && t.types.length > 1;
  const found = (): { named: string[]; aliases: string[]; inline: string[] } => {
    const named: string[] = [];
    const aliases: string[] = [];
    const inline: string[] = [];
    for (const f of files) {
      const source = treeOf(f);
      const at = (node: TS.Node): string => `${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}`;
      const walk = (node: TS.Node): void => {
        if ((ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name.text === 'RunStatus') named.push(f.rel);
        if (ts.isTypeAliasDeclaration(node) && /(Status|State|Outcome)$/.test(node.name.text) && literalUnion(node.type)) aliases.push(`${f.rel} ${node.name.text}`);
        // A status, state or outcome field (or getter) typed with literal words of its own instead of a named vocabulary.
        const name = (ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isParameter(node)) && node.name && ts.isIdentifier(node.name) ? node.name.text : '';
        const type = ts.isGetAccessorDeclaration(node) ? node.type : ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isParameter(node) ? node.type : undefined;
        if (RUN_FLOORS(f.rel) && /^(status|state|outcome)$/.test(name) && literalUnion(type)) inline.push(at(node));
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    return { named, aliases, inline };
  };
  const seen = found();

  it('one type named RunStatus, in runs/outcome.ts', () => {
    expect(seen.named).toEqual([STATUS_VOCABULARY]);
  });

  it('a union of status words is declared in runs/outcome.ts, unless it answers another question (named here)', () => {
    expect(seen.aliases.filter((a) => !a.startsWith(`${STATUS_VOCABULARY} `) && !OTHER_QUESTIONS.has(a))).toEqual([]);
    // Each exemption still exists (a stale one would let a new vocabulary in under its name).
    for (const a of OTHER_QUESTIONS.keys()) expect(seen.aliases).toContain(a);
  });

  it('in runs/ and tools/, no status, state or outcome field, getter or parameter spells its own words: it names a vocabulary', () => {
    expect(seen.inline).toEqual([]);
  });
});

/**
 * The guarded shell is one call of the runner (issue 41): `integrations/shell.ts` translates the client's request
 * into `execute_command` on the session's hook Run and the runner's answer back; the warm server's side of it
 * (`cli/hook-shell.ts`) and the CLI command hand the request on. None of them builds a guard, marks or measures
 * the workspace, charges a ledger or puts anything back: the runner's steps do (tools/command-charge.ts).
 */
describe('the guarded shell goes through the runner', () => {
  const SHELL_ROUTE = ['integrations/shell.ts', 'cli/hook-shell.ts', 'cli/commands/shell.ts'];
  /** What only the runner's capture and charge steps do: build these, or call these methods. */
  const BUILT = new Set(['ConstraintGuard', 'CommandEffects', 'CommandIndex']);
  const CALLED = new Set(['guardFor', 'openLedger', 'charge', 'check', 'record', 'checkChanges', 'governingChanged', 'recordChanges', 'before', 'after', 'putBack', 'restore']);
  const seen = (rel: string): { built: string[]; called: string[]; calls: TS.CallExpression[] } => {
    const out = { built: [] as string[], called: [] as string[], calls: [] as TS.CallExpression[] };
    const visit = (node: TS.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && BUILT.has(node.expression.text)) out.built.push(node.expression.text);
      if (ts.isCallExpression(node)) {
        out.calls.push(node);
        const callee = node.expression;
        const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : null;
        if (name !== null && CALLED.has(name)) out.called.push(name);
      }
      ts.forEachChild(node, visit);
    };
    visit(treeOf({ rel }));
    return out;
  };

  it('shell.ts, hook-shell.ts and the shell command build no guard, take no checkpoint and charge nothing themselves', () => {
    for (const rel of SHELL_ROUTE) {
      const f = files.find((x) => x.rel === rel);
      expect(f, rel).toBeDefined();
      const { built, called } = seen(rel);
      const guardImports = (f?.local ?? []).filter((t) => t.startsWith('guard/') || t === 'workspace/checkpoints/service.ts' || t === 'workspace/checkpoints/command-index.ts');
      expect({ rel, built, called, guardImports }).toEqual({ rel, built: [], called: [], guardImports: [] });
    }
  });

  it("shell.ts runs the command as the runner's execute_command call, with a sink", () => {
    const asked = seen('integrations/shell.ts').calls.filter((c) => {
      const callee = c.expression;
      const arg = c.arguments[0];
      if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'call' || arg === undefined || !ts.isObjectLiteralExpression(arg)) return false;
      const prop = (name: string) => arg.properties.find((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === name);
      const tool = prop('tool');
      return tool !== undefined && ts.isPropertyAssignment(tool) && ts.isStringLiteral(tool.initializer) && tool.initializer.text === 'execute_command' && prop('sink') !== undefined;
    });
    expect(asked.length).toBe(1);
  });
});

/**
 * Each tool carries its own `describe` and `slim` (issue 41): how a call is
 * shown to a person and how its data is slimmed for a program are written in
 * the tool's definition (tools/types.ts), found by name in tools/call-views.ts.
 * No module switches over tool names, and the two modules that used to
 * (the loop's call checks, the MCP results) spell none.
 */
describe('each tool carries its own describe and slim', () => {
  const toolNames = new Set<string>(KNOWN_TOOL_NAMES);

  it('no switch in src/ has a case that is a tool name', () => {
    const found: string[] = [];
    for (const f of files) {
      const source = treeOf(f);
      const walk = (node: TS.Node): void => {
        if (ts.isCaseClause(node) && ts.isStringLiteralLike(node.expression) && toolNames.has(node.expression.text)) {
          found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: case '${node.expression.text}'`);
        }
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    expect(found).toEqual([]);
  });

  it('the agent loop (agent/loop.ts, agent/loop/), mcp/results.ts and tools/call-views.ts spell no tool name where a name is meant (a plain string)', () => {
    const found: string[] = [];
    // A tool's name is a plain string where it is used; the same word as a member of a literal union (a transcript entry's `type: 'active_edit'`) is another vocabulary.
    const checker = buildProgram().getTypeChecker();
    const asName = (node: TS.StringLiteralLike): boolean => {
      if (ts.isLiteralTypeNode(node.parent)) return false;
      const context = ts.isCaseClause(node.parent) ? checker.getTypeAtLocation(node.parent.parent.parent.expression) : checker.getContextualType(node as TS.Expression);
      return context === undefined || (context.flags & ts.TypeFlags.String) !== 0 || (context.isUnion() && context.types.some((t) => (t.flags & ts.TypeFlags.String) !== 0));
    };
    for (const f of files.filter((file) => LOOP_FILES(file.rel) || ['mcp/results.ts', 'tools/call-views.ts'].includes(file.rel))) {
      const source = treeOf(f);
      const walk = (node: TS.Node): void => {
        if (ts.isStringLiteralLike(node) && toolNames.has(node.text) && asName(node)) found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: '${node.text}'`);
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    expect(found).toEqual([]);
  });
});

/**
 * How to add a format (docs/architecture.md) is a recipe a contributor
 * follows: every module and test it names exists (the example format, acme,
 * aside), and the functions it tells them to use are exported where it says.
 */
describe('the recipe for a new format names what exists', () => {
  it('every src/ and test/ path in "How to add a format" exists', () => {
    const doc = fs.readFileSync(path.resolve(SRC, '../docs/architecture.md'), 'utf8');
    const start = doc.indexOf('## How to add a format');
    expect(start, 'docs/architecture.md needs its "How to add a format" section').toBeGreaterThan(-1);
    const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
    const named = [...section.matchAll(/`((?:test\/)?[a-z-]+\/[A-Za-z0-9_./*-]+\.(?:ts|json|md))`/g)].map((m) => m[1] as string).filter((p) => !p.includes('acme') && !p.includes('*'));
    expect(named.length).toBeGreaterThan(5);
    const root = path.resolve(SRC, '..');
    const bare = (p: string): string => (p.startsWith('test/') || p.startsWith('docs/') ? path.join(root, p) : fs.existsSync(path.join(root, 'test', p)) ? path.join(root, 'test', p) : path.join(SRC, p));
    expect(named.filter((p) => !fs.existsSync(bare(p)) && !fs.existsSync(path.join(root, 'test/formats', p)))).toEqual([]);
    const render = files.find((f) => f.rel === 'formats/render.ts')?.text ?? '';
    for (const fn of ['align', 'initialSlices', 'growSlices', 'textEdits', 'blockLines']) expect(render, fn).toMatch(new RegExp(`export function ${fn}\\(`));
  });
});

/**
 * A tool is named through its definition (issue 41): outside integrations/
 * (where a client's own tool names share spellings with ours: Codex's
 * apply_patch, Gemini CLI's write_file), no module compares a name with a tool
 * name spelled as a string literal — `readFileTool.name`, a kind or the tool's
 * own metadata instead, so renaming a tool cannot leave a check behind. Read
 * with the type checker: only a comparison with a plain string counts (a
 * union that happens to hold the same word is another vocabulary).
 */
describe('no tool-name checks spelled as literals', () => {
  it('no module outside integrations/ compares a string with a tool name literal', () => {
    const toolNames = new Set<string>(KNOWN_TOOL_NAMES);
    const checker = buildProgram().getTypeChecker();
    const comparisons = [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken];
    const found: string[] = [];
    for (const f of files.filter((file) => file.folder !== 'integrations')) {
      const source = treeOf(f);
      const walk = (node: TS.Node): void => {
        if (ts.isBinaryExpression(node) && comparisons.includes(node.operatorToken.kind)) {
          for (const [side, other] of [
            [node.left, node.right],
            [node.right, node.left],
          ] as const) {
            if (ts.isStringLiteralLike(side) && toolNames.has(side.text) && checker.getTypeAtLocation(other).flags & ts.TypeFlags.String) {
              found.push(`${f.rel}:${ts.getLineAndCharacterOfPosition(source, node.getStart()).line + 1}: ${node.getText().slice(0, 70)}`);
            }
          }
        }
        ts.forEachChild(node, walk);
      };
      walk(source);
    }
    expect(found).toEqual([]);
  });
});

/**
 * The traces of docs/architecture.md ("Where is … ?"): each names the files a reader must open, in order, and says
 * how many. Issue 41's bound: ten at most. The count said is the count listed, and each listed file exists, so a
 * refactor that moves a step leaves a trace that no longer reads true failing here, not a stale page.
 */
describe('the traces of docs/architecture.md read true', () => {
  const doc = fs.readFileSync(path.resolve(SRC, '../docs/architecture.md'), 'utf8');
  const traces = [...doc.matchAll(/^\*\*(Where [^*]+\?)\*\* \((\d+) files\)[^\n]*\n([\s\S]*?)(?=\n\n[^\d\s])/gm)].map((m) => ({
    question: m[1] as string,
    said: Number(m[2]),
    // Each numbered step opens with the file it names: "3. `tools/runner.ts` — …".
    files: [...(m[3] as string).matchAll(/^\s*\d+\. `([^`]+)`/gm)].map((f) => f[1] as string),
  }));

  it('finds the five questions the issue asks to be traced', () => {
    const questions = traces.map((t) => t.question);
    for (const q of ["Where is Claude Code's Edit vetted and recorded?", 'Where is a Bash command run and its effects captured?', 'Where is an MCP `.git/config` write refused?']) expect(questions).toContain(q);
  });

  it('each names at most ten files, as many as it says, every one of them in src/', () => {
    for (const t of traces) {
      expect(t.files.length, t.question).toBe(t.said);
      expect(t.said, t.question).toBeLessThanOrEqual(10);
      for (const f of t.files) expect(fs.existsSync(path.join(SRC, f)), `${t.question}: ${f}`).toBe(true);
    }
  });
});

describe('no list is spread into a call (src/arrays.ts)', () => {
  // A spread into a call passes every item as an argument on the stack: past ~120,000 items V8 throws RangeError, so a
  // restore over that many new files, or a report over a text with that many backtick runs, would crash.
  const SPREAD_TAKERS = new Set(['push', 'unshift', 'splice', 'min', 'max', 'fromCharCode', 'fromCodePoint', 'apply']);
  it('no push/unshift/splice/Math.min/Math.max/String.fromCharCode takes a spread list: appendAll, prependAll, leastOf, greatestOf do', () => {
    const found: string[] = [];
    for (const f of files) {
      if (f.rel === 'arrays.ts') continue;
      const tree = treeOf(f);
      const visit = (node: TS.Node): void => {
        if (ts.isCallExpression(node) && node.arguments.some(ts.isSpreadElement) && ts.isPropertyAccessExpression(node.expression) && SPREAD_TAKERS.has(node.expression.name.text)) {
          found.push(`src/${f.rel}:${tree.getLineAndCharacterOfPosition(node.getStart(tree)).line + 1}: ${node.getText(tree).slice(0, 100)}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(tree);
    }
    expect(found, 'spread lists into a call; use src/arrays.ts (appendAll(out, items), leastOf(values), …)').toEqual([]);
  });
});
