/**
 * The GitHub Action (action.yml at the root), run as a runner runs a
 * composite action: each `run:` step as `bash --noprofile --norc -eo pipefail`
 * on a script file, with the variables GitHub sets (GITHUB_OUTPUT per step,
 * GITHUB_PATH and GITHUB_ENV carried to later steps, GITHUB_STEP_SUMMARY,
 * RUNNER_TEMP, GITHUB_ACTION_PATH), `${{ … }}` expressions filled in, and
 * `if:` honoured. `uses:` steps (setup-node, upload-artifact) are GitHub's
 * own and not run here; what they would upload is checked instead. The
 * command is a real `editwarden exec` run with an applied edit, a refused
 * edit, a command and a violation.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const REPO = path.resolve(__dirname, '../..');

interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  'working-directory'?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

let base: string;
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-action-')));
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

interface StepRun {
  step: Step;
  ran: boolean;
  status: number;
  stdout: string;
}

/** Runs the composite action's steps the way a runner does; returns each step's outcome and the action's outputs. */
function runAction(inputs: Record<string, string>, workspace: string) {
  const action = parse(fs.readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as Action;
  expect(action.runs.using).toBe('composite');
  for (const [name, spec] of Object.entries(action.inputs)) if (spec.required) expect(inputs[name], `input ${name}`).toBeDefined();
  const given = Object.fromEntries(Object.entries(action.inputs).map(([name, spec]) => [name, inputs[name] ?? spec.default ?? '']));
  const temp = path.join(base, 'runner-temp');
  fs.mkdirSync(temp);
  const files = { summary: path.join(base, 'step-summary.md'), path: path.join(base, 'path.txt'), env: path.join(base, 'env.txt') };
  for (const f of Object.values(files)) fs.writeFileSync(f, '');
  const outputs: Record<string, Record<string, string>> = {};
  let extraPath: string[] = [];
  const extraEnv: Record<string, string> = {};
  const expr = (text: string): string =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, e: string) => {
      const m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(e);
      if (m) return outputs[m[1] as string]?.[m[2] as string] ?? '';
      if (e.startsWith('inputs.')) return given[e.slice(7)] ?? '';
      if (e === 'github.action_path') return REPO;
      if (e === 'github.workspace') return workspace;
      if (e === 'runner.temp') return temp;
      throw new Error(`the test's runner does not know the expression ${e}`);
    });
  const runs: StepRun[] = [];
  let failed = false;
  for (const [index, step] of action.runs.steps.entries()) {
    const condition = step.if ?? 'success()';
    const ran = condition === 'always()' || (condition === 'success()' && !failed);
    if (!['always()', 'success()'].includes(condition)) throw new Error(`the test's runner does not know the condition ${condition}`);
    if (!ran || step.uses) {
      runs.push({ step, ran: ran && !step.uses, status: 0, stdout: '' });
      continue;
    }
    expect(step.shell).toBe('bash');
    const script = path.join(temp, `step-${index}.sh`);
    fs.writeFileSync(script, expr(step.run as string));
    const output = path.join(temp, `output-${index}.txt`);
    fs.writeFileSync(output, '');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...extraEnv,
      PATH: [...extraPath, process.env.PATH].join(path.delimiter),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      RUNNER_OS: 'Linux',
      RUNNER_TEMP: temp,
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: REPO,
      GITHUB_OUTPUT: output,
      GITHUB_PATH: files.path,
      GITHUB_ENV: files.env,
      GITHUB_STEP_SUMMARY: files.summary,
      NO_COLOR: '1',
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expr(String(v))])),
    };
    const cwd = path.resolve(workspace, expr(step['working-directory'] ?? '.'));
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, encoding: 'utf8', timeout: 300_000 });
    if (step.id)
      outputs[step.id] = Object.fromEntries(
        fs
          .readFileSync(output, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
      );
    extraPath = fs.readFileSync(files.path, 'utf8').split('\n').filter(Boolean).reverse();
    for (const line of fs.readFileSync(files.env, 'utf8').split('\n').filter(Boolean)) {
      const [k, v] = line.split(/=(.*)/s);
      extraEnv[k as string] = v ?? '';
    }
    runs.push({ step, ran: true, status: r.status ?? -1, stdout: r.stdout + r.stderr });
    if (r.status !== 0) failed = true;
  }
  const actionOutputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, expr(v.value)]));
  return { runs, outputs: actionOutputs, summary: fs.readFileSync(files.summary, 'utf8'), temp };
}

function project(): string {
  const root = path.join(base, 'workspace');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src', 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(root, 'src', 'b.txt'), 'beta\n');
  fs.writeFileSync(path.join(root, 'README.md'), '# demo\n');
  const calls = [
    { tool: 'edit_file', args: { path: 'src/a.txt', old_text: 'alpha', new_text: 'ALPHA' } },
    { tool: 'edit_file', args: { path: 'src/a.txt', old_text: 'no such anchor', new_text: 'x' } },
    { tool: 'execute_command', args: { command: 'echo built-ok' } },
    { tool: 'edit_file', args: { path: 'src/b.txt', old_text: 'beta', new_text: 'BETA' } },
  ];
  fs.writeFileSync(path.join(root, 'calls.jsonl'), `${calls.map((c) => JSON.stringify(c)).join('\n')}\n`);
  spawnSync('git', ['init', '-q'], { cwd: root });
  return root;
}

describe('action.yml run as a GitHub runner runs it', () => {
  it('runs a real exec, always publishes the report (summary and artifact folder), and fails the job with exit 2 on a violation', () => {
    const root = project();
    const { runs, outputs, summary } = runAction({ run: 'editwarden exec calls.jsonl --max-files 1' }, root);
    const byName = (needle: string) => runs.find((r) => (r.step.name ?? r.step.uses ?? '').includes(needle)) as StepRun;
    expect(byName('Install').status, byName('Install').stdout).toBe(0);
    expect(byName('Run the agent').status, byName('Run the agent').stdout).toBe(0);
    expect(outputs['exit-code']).toBe('2');
    expect(byName('Report').status, byName('Report').stdout).toBe(0);
    const last = byName("Exit with editwarden's code");
    expect(last.status).toBe(2);
    expect(last.stdout).toContain('::error title=editwarden::a constraint was violated (exit 2)');
    // The first edit landed, the one past max_files did not.
    expect(fs.readFileSync(path.join(root, 'src', 'a.txt'), 'utf8')).toBe('ALPHA\n');
    expect(fs.readFileSync(path.join(root, 'src', 'b.txt'), 'utf8')).toBe('beta\n');
    // The job summary holds the report: the change's diff, the refusal's code, the command, the violation.
    expect(summary).toContain('+ALPHA');
    expect(summary).toContain('E_NOT_FOUND');
    expect(summary).toContain('echo built-ok');
    expect(summary).toMatch(/max files limit exceeded|max_files/);
    // What upload-artifact would upload: the folder the report step named.
    const upload = runs.find((r) => r.step.uses?.startsWith('actions/upload-artifact')) as StepRun;
    expect(upload.step.if).toBe('always()');
    const dir = outputs['report-dir'] as string;
    expect(dir).not.toBe('');
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain('E_NOT_FOUND');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']https?:/i);
    expect(fs.readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain('E_NOT_FOUND');
    // The summary was written once (the HTML report does not append to it).
    expect(summary.split('E_NOT_FOUND').length).toBe(fs.readFileSync(path.join(dir, 'report.md'), 'utf8').split('E_NOT_FOUND').length);
  }, 300_000);

  it('a clean run ends the job with 0 and still publishes the report', () => {
    const root = project();
    fs.writeFileSync(path.join(root, 'calls.jsonl'), `${JSON.stringify({ tool: 'edit_file', args: { path: 'src/a.txt', old_text: 'alpha', new_text: 'ALPHA' } })}\n`);
    const { runs, outputs, summary } = runAction({ run: 'editwarden exec calls.jsonl' }, root);
    expect(outputs['exit-code']).toBe('0');
    expect(runs.at(-1)?.status).toBe(0);
    expect(summary).toContain('+ALPHA');
  }, 300_000);
});
