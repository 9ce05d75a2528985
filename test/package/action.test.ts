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

/** Runs the composite action's steps the way a runner does (`jobEnv`: the job's own env, e.g. its secrets); returns each step's outcome and the action's outputs. */
function runAction(inputs: Record<string, string>, workspace: string, jobEnv: Record<string, string> = {}) {
  const action = parse(fs.readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as Action;
  expect(action.runs.using).toBe('composite');
  for (const [name, spec] of Object.entries(action.inputs)) if (spec.required) expect(inputs[name], `input ${name}`).toBeDefined();
  const given = Object.fromEntries(Object.entries(action.inputs).map(([name, spec]) => [name, inputs[name] ?? spec.default ?? '']));
  // One runner per call: a test may run the action twice.
  const job = fs.mkdtempSync(path.join(base, 'job-'));
  const temp = path.join(job, 'runner-temp');
  fs.mkdirSync(temp);
  const files = { summary: path.join(job, 'step-summary.md'), path: path.join(job, 'path.txt'), env: path.join(job, 'env.txt') };
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
      ...jobEnv,
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
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, encoding: 'utf8', timeout: 120_000 });
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
    // A step that hangs is killed by the timeout: that is a failure of its own (signal set, status null).
    expect(r.signal, `step ${step.name ?? index} was killed (it hung)`).toBeNull();
    runs.push({ step, ran: true, status: r.status ?? -1, stdout: r.stdout + r.stderr });
    if (r.status !== 0) failed = true;
  }
  const actionOutputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, expr(v.value)]));
  return { runs, outputs: actionOutputs, summary: fs.readFileSync(files.summary, 'utf8'), temp };
}

function project2(): string {
  const root = path.join(base, 'workspace2');
  fs.mkdirSync(root);
  spawnSync('git', ['init', '-q'], { cwd: root });
  return root;
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
    // The counts and the judgement stand at the top of the summary.
    expect(summary.split('\n')[0]).toBe('### editwarden: 1 violation(s), 1 refusal(s) — the job fails: a constraint was violated (exit 2); see the job summary');
    // Every file the summary names under .editwarden/ (a command's logs, a violation report, metrics) is in the artifact, under state/.
    const named = [...summary.matchAll(/\.editwarden\/([^\s`'")\]]+)/g)].map((m) => (m[1] as string).replace(/[.,:;]+$/, ''));
    expect(named.length).toBeGreaterThan(0);
    for (const rel of new Set(named)) {
      const inArtifact = path.join(dir, 'state', rel);
      expect(fs.existsSync(inArtifact), `${rel} named by the summary is in the artifact`).toBe(true);
      if (fs.statSync(inArtifact).isDirectory()) expect(fs.readdirSync(inArtifact).length, rel).toBeGreaterThan(0);
    }
    expect(fs.readFileSync(path.join(dir, 'state', 'events.jsonl'), 'utf8')).toContain('E_NOT_FOUND');
  }, 300_000);

  it('a clean run ends the job with 0 and still publishes the report', () => {
    const root = project();
    fs.writeFileSync(path.join(root, 'calls.jsonl'), `${JSON.stringify({ tool: 'edit_file', args: { path: 'src/a.txt', old_text: 'alpha', new_text: 'ALPHA' } })}\n`);
    const { runs, outputs, summary } = runAction({ run: 'editwarden exec calls.jsonl' }, root);
    expect(outputs['exit-code']).toBe('0');
    expect(runs.at(-1)?.status).toBe(0);
    expect(summary).toContain('+ALPHA');
  }, 300_000);

  it('no input, output or event data reaches a shell line by ${{ }}: every run: line is fixed text, values come through env:', () => {
    const action = parse(fs.readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as Action;
    for (const step of action.runs.steps) if (step.run !== undefined) expect(step.run, step.name).not.toContain('${{');
  });
});

const SECRET_GIT = 'ghs_checkoutTOKEN0123456789abcdefSECRET';
const SECRET_ENV = 'sk-step-secret-9f8e7d6c5b4a';

/** Every file under `dir` (links and special files too), relative. */
function walk(dir: string, rel = ''): Array<{ rel: string; st: fs.Stats }> {
  return fs.readdirSync(path.join(dir, rel)).flatMap((name) => {
    const r = path.join(rel, name);
    const st = fs.lstatSync(path.join(dir, r));
    return st.isDirectory() ? walk(dir, r) : [{ rel: r, st }];
  });
}

describe('the Action publishes only what editwarden wrote (issue 38.2)', () => {
  it('a hostile checkout and a run that plants links, a FIFO, a hard link and 1 GiB sparse files in the state folder: nothing of them is published, no step hangs', () => {
    const root = project();
    fs.appendFileSync(path.join(root, '.git', 'config'), `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${SECRET_GIT}\n`);
    // The pull request ships a .editwarden/ of its own (committed links).
    fs.mkdirSync(path.join(root, '.editwarden'));
    fs.symlinkSync('../.git/config', path.join(root, '.editwarden', 'events.jsonl'));
    fs.symlinkSync('/proc/self/environ', path.join(root, '.editwarden', 'events.1.jsonl'));
    spawnSync('git', ['add', '-f', '.editwarden'], { cwd: root });
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'ship state'], { cwd: root });
    // And the run itself (a step of the PR's code, unsandboxed) plants more once editwarden has written its state.
    const plant = [
      'editwarden exec calls.jsonl --max-files 1; rc=$?',
      'run=$(ls .editwarden/runs | head -n 1)',
      'ln -s ../.git/config .editwarden/events.2.jsonl',
      'ln -s /proc/self/environ .editwarden/events.3.jsonl',
      'mkfifo .editwarden/events-index.jsonl',
      'truncate -s 1G .editwarden/events.1.jsonl',
      'ln .git/config .editwarden/runs/$run/summary.md',
      'ln -s /proc/self/environ .editwarden/runs/$run/transcript.jsonl',
      'ln -s ../../../../.git/config .editwarden/runs/$run/notes.md',
      'truncate -s 1G .editwarden/runs/$run/big.md',
      'rm .editwarden/runs/$run/commands/3/stdout.log && mkfifo .editwarden/runs/$run/commands/3/stdout.log',
      'ln -sf /proc/self/environ .editwarden/runs/$run/commands/3/stderr.log',
      'exit $rc',
    ].join('\n');
    const { runs, outputs, summary } = runAction({ run: plant }, root, { SECRET_TOKEN: SECRET_ENV });
    for (const r of runs.filter((x) => x.ran)) if (!r.step.name?.startsWith('Exit')) expect(r.status, `${r.step.name}: ${r.stdout}`).toBe(0);
    expect(outputs['exit-code']).toBe('2');
    const dir = outputs['report-dir'] as string;
    const files = walk(dir);
    // Regular files only, small, and only the reports and state/.
    for (const f of files) {
      expect(f.st.isFile(), f.rel).toBe(true);
      expect(f.rel).toMatch(/^(report\.md|report\.html|state\/)/);
    }
    expect(files.reduce((n, f) => n + f.st.size, 0)).toBeLessThan(4 * 1024 * 1024);
    const names = files.map((f) => f.rel);
    for (const planted of ['summary.md', 'transcript.jsonl', 'notes.md', 'big.md', 'commands/3/stdout.log', 'commands/3/stderr.log'])
      expect(
        names.some((n) => n.endsWith(planted)),
        planted,
      ).toBe(false);
    expect(names.filter((n) => /^state\/events/.test(n))).toEqual(['state/events.jsonl']);
    // Nothing of .git/config or the environment, anywhere in the artifact or the summary.
    for (const text of [...files.map((f) => fs.readFileSync(path.join(dir, f.rel), 'utf8')), summary]) {
      expect(text).not.toContain(SECRET_GIT);
      expect(text).not.toContain(SECRET_ENV);
      expect(text).not.toContain('extraheader');
    }
    // What editwarden did write is all there.
    expect(summary).toContain('E_NOT_FOUND');
    expect(names).toContain(`state/runs/${fs.readdirSync(path.join(root, '.editwarden', 'runs'))[0]}/commands/3/combined.log`);
    // The checkout's own .editwarden was moved out of the project before the command ran, and said so.
    expect(runs.find((r) => r.step.name?.startsWith('Run the agent'))?.stdout).toContain('::warning title=editwarden::the checkout held a .editwarden');
  }, 300_000);
});

describe('the Action judges the run: input fail-on (issue 40.4)', () => {
  /** A client run in miniature: the client's hook refuses a Write to .git/config, the client goes on and exits 0. */
  const clientRun = (root: string): string => {
    const input = JSON.stringify({ session_id: 'sess-ci', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: path.join(root, '.git', 'config'), content: 'x' } });
    return `printf '%s' '${input}' | editwarden hook claude pre-tool-use --root .\necho "the client finished"`;
  };

  it('fail-on: refusal fails the step on a run whose command exits 0 with a refusal; the default (violation) passes it; the counts top the summary', () => {
    const root = project();
    const strict = runAction({ run: clientRun(root), 'fail-on': 'refusal' }, root);
    expect(strict.outputs['exit-code']).toBe('0');
    expect(strict.outputs.refusals).toBe('1');
    expect(strict.outputs.violations).toBe('0');
    const last = strict.runs.at(-1) as StepRun;
    expect(last.status).toBe(1);
    expect(last.stdout).toContain('::error title=editwarden::1 refusal(s) recorded though the command exited 0 (fail-on: refusal)');
    expect(strict.summary.split('\n')[0]).toBe('### editwarden: 0 violation(s), 1 refusal(s) — the job fails: 1 refusal(s) recorded though the command exited 0 (fail-on: refusal); see the job summary');
    expect(strict.summary).toContain('E_DENIED_PATH');
  }, 300_000);

  it('the default fail-on (violation) lets a refusal pass, and an unknown fail-on is refused before the command runs', () => {
    const root = project();
    const lenient = runAction({ run: clientRun(root) }, root);
    expect(lenient.runs.at(-1)?.status).toBe(0);
    expect(lenient.summary.split('\n')[0]).toBe('### editwarden: 0 violation(s), 1 refusal(s) — the job passes');
    const other = project2();
    const bad = runAction({ run: 'touch ran.txt', 'fail-on': 'sometimes' }, other);
    expect(bad.runs.find((r) => r.step.name?.startsWith('Run the agent'))?.status).toBe(64);
    expect(fs.existsSync(path.join(other, 'ran.txt'))).toBe(false);
  }, 300_000);
});
