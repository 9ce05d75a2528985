/**
 * `editwarden demo`: the README's main job. Copies a sample project shipped
 * in the repository into a temp folder and tells, step by step with the real
 * outputs, what editwarden does: a controlled edit that compiles, one that
 * breaks the build and is rolled back byte for byte, a second edit refused, a
 * reply of active-edit directives (one malformed) applied, and a dry-run;
 * then, unless only the edits are asked for, an agent run and an Editor
 * session, both driven by a scripted model.
 * Uses the same library calls as the CLI; nothing is simulated. Never touches
 * anything outside its temp folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ControlledEditSession, type ControlledEditOutcome } from '../../agent/controlled.js';
import { hashTree } from '../../agent/hash-tree.js';
import { applyRequests } from '../../apply/pipeline.js';
import { DEFAULT_CONFIG } from '../../config/defaults.js';
import type { Config } from '../../config/config.js';
import { parseEdits } from '../../formats/index.js';
import { activeEditFormat } from '../../formats/active-edit-format.js';
import { paint, paintDiff, type Io } from '../output.js';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { openProject } from '../../host/project.js';
import { detectSandbox } from '../../sandbox/detect.js';
import { defined } from '../../defined.js';
import { STATE_DIR } from '../../config/protected-set.js';

type DemoSample = 'cmake' | 'ts';

export interface DemoOptions {
  /** cmake when cmake and a C++ compiler are present, else ts. */
  sample?: DemoSample;
  /** Folder to work in (default: a new temp folder). */
  dir?: string;
  /** Keep the folder afterwards (default: keep, so the reports can be read). */
  keep?: boolean;
  /** Only the edit story (steps 1–5): no agent run and no Editor session, which are the same whatever the sample. */
  editsOnly?: boolean;
  color: boolean;
}

export interface DemoResult {
  ok: boolean;
  dir: string;
  sample: DemoSample;
  reports: string[];
  steps: Array<{ title: string; ok: boolean }>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const SAMPLES = path.resolve(here, '../../../samples');

function has(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

interface SampleSpec {
  folder: string;
  file: string;
  good: { old: string; new: string };
  bad: { old: string; new: string };
  second: { old: string; new: string };
  build: string | undefined;
  setup?: string[];
}

function sampleSpec(sample: DemoSample): SampleSpec {
  if (sample === 'cmake') {
    return {
      folder: 'cmake-hello',
      file: 'src/greeting.cpp',
      good: { old: 'return 1;', new: 'return 2;' },
      bad: { old: 'return "Hello, " + name + "!";', new: 'return "Hello, " + name + 42;' },
      second: { old: 'return 2;', new: 'return 3;' },
      build: undefined, // detected: cmake --build build
      setup: ['cmake', '-S', '.', '-B', 'build'],
    };
  }
  const tsc = path.resolve(here, '../../../node_modules/.bin/tsc');
  return {
    folder: 'ts-hello',
    file: 'src/greeting.ts',
    good: { old: 'return 1;', new: 'return 2;' },
    bad: { old: 'return `Hello, ${name}!`;', new: 'return name.length;' },
    second: { old: 'return 2;', new: 'return 3;' },
    build: `${JSON.stringify(tsc)} -p tsconfig.json --noEmit`,
  };
}

export async function runDemo(io: Io, options: DemoOptions): Promise<DemoResult> {
  const c = options.color;
  const out = (s = ''): void => void io.stdout.write(`${s}\n`);
  const sample: DemoSample = options.sample ?? (has('cmake') && (has('c++') || has('g++')) ? 'cmake' : 'ts');
  const spec = sampleSpec(sample);
  if (options.dir !== undefined && fs.existsSync(options.dir) && fs.readdirSync(options.dir).length > 0) {
    // The demo copies a sample over the folder and --clean deletes it: never someone's files.
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `--dir ${options.dir} is not empty; the demo only works in an empty (or new) folder.`,
      hint: 'Pass a new or empty folder, or leave --dir out to use a temp folder.',
    });
  }
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'editwarden-demo-'));
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(path.join(SAMPLES, spec.folder), dir, { recursive: true });
  const steps: DemoResult['steps'] = [];
  const reports: string[] = [];
  let n = 0;
  const step = (title: string): void => {
    n++;
    out();
    out(paint(c, 'bold', `── Step ${n}: ${title}`));
  };
  const verdict = (title: string, ok: boolean, text: string): void => {
    steps.push({ title, ok });
    out(`${ok ? paint(c, 'green', '✔') : paint(c, 'red', '✘')} ${text}`);
  };

  out(paint(c, 'bold', 'editwarden demo'));
  if (sample === 'ts' && options.sample === undefined) out('cmake or a C++ compiler is missing here, so the demo runs the same story on a TypeScript sample checked with tsc.');
  out(`Sample project (${sample === 'cmake' ? 'CMake C++' : 'TypeScript'}) copied to ${dir}`);
  // A reader must know whether the builds below were confined: the demo runs either way, and says which.
  const sandbox = detectSandbox();
  out(sandbox.kind === 'none' ? `${paint(c, 'yellow', 'Commands run unsandboxed here')}: ${sandbox.detail}. ${sandbox.fix ?? ''}`.trimEnd() : `Commands (builds, tests) run sandboxed: ${sandbox.detail}.`);
  if (spec.setup) {
    const r = spawnSync(spec.setup[0] as string, spec.setup.slice(1), { cwd: dir, encoding: 'utf8' });
    out(`$ ${spec.setup.join(' ')}  → exit ${r.status}`);
    if (r.status !== 0) throw new Error(`demo setup failed: ${r.stderr}`);
  }
  const config: Config = structuredClone(DEFAULT_CONFIG);
  if (spec.build) config.verify.build = spec.build;
  const project = openProject(dir, config);
  const { ws, applyOptions } = project;
  const controlled = (): ControlledEditSession => new ControlledEditSession(project);

  // 1. A controlled edit that compiles.
  step(`controlled edit that compiles (${spec.file}: ${spec.good.old} → ${spec.good.new})`);
  const s1 = controlled();
  const first = await s1.editFile({ filename: spec.file, old_text: spec.good.old, new_text: spec.good.new });
  showControlled(first, io, c);
  verdict('good edit', first.tool_exit_code === 0, first.message);
  if (first.report) reports.push(first.report.markdown, first.report.json);

  // 2. The same session refuses a second edit.
  step('the same session refuses a second edit');
  const again = await s1.editFile({ filename: spec.file, old_text: spec.second.old, new_text: spec.second.new });
  out(`${again.error?.code}: ${again.error?.message}`);
  verdict('second edit refused', again.error?.code === 'E_SECOND_EDIT', again.message);

  // 3. A controlled edit that breaks the build and is rolled back byte for byte.
  step('controlled edit that breaks the build → rolled back');
  const beforeTree = hashTree(dir, [STATE_DIR, 'build', 'docs', 'node_modules']);
  const s2 = controlled();
  const broken = await s2.editFile({ filename: spec.file, old_text: spec.bad.old, new_text: spec.bad.new });
  showControlled(broken, io, c);
  const afterTree = hashTree(dir, [STATE_DIR, 'build', 'docs', 'node_modules']);
  const identical = JSON.stringify(beforeTree) === JSON.stringify(afterTree);
  out(`source tree: ${Object.keys(beforeTree).length} files hashed before and after — ${identical ? 'byte-identical' : 'DIFFERENT'}`);
  for (const [file, hash] of Object.entries(beforeTree)) out(`  ${hash.slice(0, 16)}  ${afterTree[file]?.slice(0, 16)}  ${file}`);
  verdict('broken edit rolled back', broken.tool_exit_code === 2 && identical && broken.rollback_check?.exact === true, broken.message);
  if (broken.report) reports.push(broken.report.markdown);

  // 4. Active-edit directives: several in one reply, one malformed, the others applied.
  step('a model reply with active-edit directives (one malformed)');
  const reply = activeEditReply(sample);
  out(paint(c, 'dim', reply.trimEnd()));
  const parsed = parseEdits(reply, activeEditFormat.name, { fileExists: (p) => ws.exists(p) });
  const applied = await applyRequests(ws, parsed.requests, {
    partial: true,
    ...applyOptions,
    parseErrors: parsed.errors.map((e) => ({ index: e.index, ...defined({ path: e.path || undefined }), error: e.error.toJSON() })),
  });
  for (const [i, r] of applied.results.entries()) {
    const label = r.status === 'applied' ? paint(c, 'green', 'applied') : paint(c, 'red', r.status);
    out(`directive #${i + 1}: ${label} ${r.action} ${r.path}${r.error ? ` — ${r.error.code}: ${r.error.message}` : ` (+${r.added} -${r.removed})`}`);
  }
  const appliedCount = applied.results.filter((r) => r.status === 'applied').length;
  const rejectedCount = applied.results.filter((r) => r.status === 'rejected').length;
  verdict('active edit', appliedCount === 2 && rejectedCount === 1, `${appliedCount} directives applied, ${rejectedCount} malformed one reported`);

  // 5. A dry run: the diff, and nothing written.
  step('dry-run: see the diff, write nothing');
  const dryBefore = hashTree(dir, [STATE_DIR, 'build', 'node_modules']);
  const dry = await applyRequests(ws, [{ path: spec.file, action: 'edit', oldText: spec.good.new, newText: spec.second.new }], { dryRun: true, ...applyOptions });
  io.stdout.write(paintDiff(c, dry.diff));
  const unchanged = JSON.stringify(dryBefore) === JSON.stringify(hashTree(dir, [STATE_DIR, 'build', 'node_modules']));
  verdict('dry run', dry.ok && unchanged, unchanged ? 'nothing was written' : 'files changed during a dry run!');

  if (!options.editsOnly) {
    // 6. editwarden's own agent loop, driven by a scripted model (no API key, no network).
    step('an agent run: a scripted model through the real OpenAI client and a local server');
    const { runAgentDemo } = await import('./agent-demo.js');
    const agent = await runAgentDemo(io, { dir, color: c });
    if (agent.skipped) out(`${paint(c, 'yellow', '–')} agent run: skipped ${agent.skipped}; run folder ${agent.runDir}`);
    else verdict('agent run', agent.ok, agent.ok ? `the task was completed; run folder ${agent.runDir}` : `the agent run ended with ${agent.status} (exit ${agent.exitCode})`);
    for (const file of [agent.transcript, agent.metrics]) if (file) reports.push(path.relative(dir, path.resolve(agent.dir, file)));

    // 7. The Editor: scouts, verify, fix-forward loop, summary; and a dry-run proposal.
    step('the Editor: scouts, verification, summary — and a dry-run proposal applied later');
    const { runEditorDemo } = await import('./editor-demo.js');
    const editor = await runEditorDemo(io, { dir, color: c });
    verdict('editor run', editor.ok, editor.ok ? `editor ${editor.status}; summary ${editor.summary ?? '(none)'}` : `the editor run ended with ${editor.status}`);
    for (const file of [editor.summary, editor.proposal]) if (file) reports.push(path.relative(dir, path.resolve(editor.dir, file)));
  }

  out();
  out(paint(c, 'bold', 'Reports written:'));
  for (const r of [...new Set(reports)]) out(`  ${path.join(dir, r)}`);
  out(`  ${path.join(dir, STATE_DIR, 'runs')}/ (build logs per run)`);
  const ok = steps.every((s) => s.ok);
  out(ok ? paint(c, 'green', `All ${steps.length} steps behaved as they should.`) : paint(c, 'red', 'Some steps did not behave as expected.'));
  if (options.keep === false) fs.rmSync(dir, { recursive: true, force: true });
  return { ok, dir, sample, reports, steps };
}

function showControlled(outcome: ControlledEditOutcome, io: Io, color: boolean): void {
  const out = (s: string): void => void io.stdout.write(`${s}\n`);
  if (outcome.state.edit_checkpoint_id) out(`checkpoint ${outcome.state.edit_checkpoint_id} (pre_edit_${outcome.state.edit_file_path})`);
  if (outcome.result?.diff) io.stdout.write(paintDiff(color, outcome.result.diff));
  const v = outcome.verification;
  if (v) {
    out(`build: ${v.command} → exit ${v.exit_code}${v.timed_out ? ' (timed out)' : ''} in ${Math.round(v.duration_ms)} ms`);
    for (const d of v.diagnostics.filter((x) => x.severity === 'error').slice(0, 3)) out(`  compiler: ${d.file ?? ''}:${d.line ?? ''}: ${d.message.split('\n')[0]}`);
  }
  if (outcome.rollback_check) {
    const r = outcome.rollback_check;
    out(`rollback: ${outcome.state.edit_file_path} sha256 before ${r.before.slice(0, 16)} after ${r.after.slice(0, 16)} → ${r.exact ? 'identical' : 'DIFFERENT'}`);
  }
}

function activeEditReply(sample: DemoSample): string {
  if (sample === 'cmake') {
    return [
      'I will add a farewell and document it.',
      '---BEGIN---',
      'Edit: src/farewell.hpp',
      'action: replace',
      '---START---',
      '#pragma once',
      '',
      '// Printed when the program ends.',
      'inline const char* farewell() { return "Goodbye!"; }',
      '---END---',
      'This one is malformed (no action):',
      '---BEGIN---',
      'Edit: src/main.cpp',
      '---START---',
      'int main() { return 1; }',
      '---END---',
      'And a note at the end of the header:',
      '---BEGIN---',
      'Edit: src/greeting.hpp',
      'action: append',
      '---START---',
      '// See also farewell.hpp.',
      '---END---',
      '',
    ].join('\n');
  }
  return [
    'I will add a farewell and document it.',
    '---BEGIN---',
    'Edit: src/farewell.ts',
    'action: replace',
    '---START---',
    '/** Printed when the program ends. */',
    "export const farewell = (): string => 'Goodbye!';",
    '---END---',
    'This one is malformed (no action):',
    '---BEGIN---',
    'Edit: src/main.ts',
    '---START---',
    'console.log(1);',
    '---END---',
    '---BEGIN---',
    'Edit: src/greeting.ts',
    'action: append',
    '---START---',
    '// See also farewell.ts.',
    '---END---',
    '',
  ].join('\n');
}
