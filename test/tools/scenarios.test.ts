/**
 * The headless ADR's six test scenarios, through the real CLI process
 * (`editwarden exec`), each under on_violation: keep and again under
 * rollback. Each checks: caught at once (the offending call is the one
 * refused, nothing after it runs), aborted cleanly (exit code 2, the
 * offending change not written), partial work kept or rolled back, a clear
 * message naming the limit, metrics.json and the violation report present.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execCli, jsonl } from './helpers/cli.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-scenario-')));
  fs.writeFileSync(path.join(root, 'README.md'), 'original readme\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const write = (p: string, content = 'x\n', tokens?: number) => ({ tool: 'write_file', args: { path: p, content }, ...(tokens !== undefined ? { tokens } : {}) });
const editReadme = { tool: 'edit_file', args: { path: 'README.md', old_text: 'original', new_text: 'changed' } };
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

interface Scenario {
  name: string;
  calls: object[];
  flags: string[];
  /** Index of the call that must be refused. */
  at: number;
  type: string;
  constraint: string;
  /** Text the message must contain (the limit, named). */
  names: string[];
  /** The ADR's own error text, pasted from it (its fmt.Errorf with the scenario's numbers): the message leads with it. */
  adr?: string;
  /** Files the run wrote before the violation (kept under keep, gone under rollback). */
  kept: string[];
  /** Files that must never exist (the refused change, and calls after it). */
  never: string[];
  yaml?: string;
}

const scenarios: Scenario[] = [
  {
    name: 'max files: an 11th file with a limit of 10',
    calls: [editReadme, ...Array.from({ length: 9 }, (_, i) => write(`src/f${i + 1}.txt`)), write('src/f10.txt'), write('src/after.txt')],
    flags: [],
    at: 10,
    type: 'FileModification',
    constraint: 'max_files',
    names: ['constraints.max_files', '10'],
    adr: 'max files limit exceeded: 11 >= 10',
    kept: Array.from({ length: 9 }, (_, i) => `src/f${i + 1}.txt`),
    never: ['src/f10.txt', 'src/after.txt'],
  },
  {
    name: 'max lines: 600 lines with a limit of 500',
    calls: [editReadme, write('a.txt', lines(298)), write('b.txt', lines(300)), write('c.txt')],
    flags: [],
    at: 2,
    type: 'FileModification',
    constraint: 'max_lines_changed',
    names: ['constraints.max_lines_changed', '500', '600'],
    adr: 'max lines changed exceeded: 600 > 500',
    kept: ['a.txt'],
    never: ['b.txt', 'c.txt'],
  },
  {
    name: 'pattern: vendor/lib.go is denied',
    calls: [editReadme, write('src/main.go', 'package main\n'), write('vendor/lib.go', 'package lib\n'), write('src/after.go')],
    flags: [],
    at: 2,
    type: 'Pattern',
    constraint: 'denied_patterns',
    names: ['vendor/lib.go', 'vendor/**', 'constraints.denied_patterns'],
    adr: 'file vendor/lib.go not allowed by patterns',
    kept: ['src/main.go'],
    never: ['vendor/lib.go', 'src/after.go'],
  },
  {
    name: 'tool restriction: ask_question in headless mode',
    calls: [editReadme, write('a.txt'), { tool: 'ask_question', args: { question: 'Which database?' } }, write('b.txt')],
    flags: [],
    at: 2,
    type: 'ToolRestriction',
    constraint: 'headless',
    names: ['ask_question', 'headless'],
    adr: 'interactive tool ask_question not allowed in headless mode',
    kept: ['a.txt'],
    never: ['b.txt'],
  },
  {
    name: "tool restriction: write_file not in allowed_tools (the ADR's own list, less write_file)",
    calls: [editReadme, { tool: 'read_file', args: { path: 'README.md' } }, write('a.txt'), write('b.txt')],
    flags: [],
    yaml: 'constraints:\n  allowed_tools:\n    - read_file\n    - edit_file\n    - apply_diff\n    - search_files\n    - list_files\n    - execute_command\n',
    at: 2,
    type: 'ToolRestriction',
    constraint: 'allowed_tools',
    names: ['write_file', 'constraints.allowed_tools'],
    adr: 'tool write_file not in allowed list',
    kept: [],
    never: ['a.txt', 'b.txt'],
  },
  {
    name: 'token limit: 55,000 tokens with a limit of 50,000',
    calls: [{ ...editReadme, tokens: 5_000 }, ...Array.from({ length: 9 }, (_, i) => write(`t${i}.txt`, 'x\n', 5_000)), write('t9.txt', 'x\n', 5_000), write('t10.txt', 'x\n', 5_000)],
    flags: ['--max-files', '20'],
    at: 10,
    type: 'TokenLimit',
    constraint: 'max_tokens',
    names: ['constraints.max_tokens', '50000', '55000'],
    kept: Array.from({ length: 9 }, (_, i) => `t${i}.txt`),
    never: ['t9.txt', 't10.txt'],
  },
];

for (const policy of ['keep', 'rollback'] as const) {
  describe(`ADR scenarios under on_violation: ${policy}`, () => {
    for (const s of scenarios) {
      it(s.name, () => {
        if (s.yaml) fs.writeFileSync(path.join(root, '.editwarden.yml'), s.yaml);
        const r = execCli(root, jsonl(s.calls as never), [...s.flags, '--on-violation', policy, '--json']);
        expect(r.code, r.stderr).toBe(2);
        const out = JSON.parse(r.stdout);
        expectAborted(out, s);
        expectPartialWork(policy, s.kept, s.never);
      });
    }

    it('timeout: a hanging command is killed at the deadline', () => {
      const calls = [editReadme, write('a.txt'), { tool: 'execute_command', args: { command: 'echo $$ > pid.txt; sleep 60.4213', timeout: 120 } }, write('b.txt')];
      // The deadline must fall inside the hanging command, never inside the two calls before it: they take a
      // tenth of a second alone but seconds on a loaded machine (1.5 s was seen to end the run during the write).
      const r = execCli(root, jsonl(calls), ['--timeout', '8', '--on-violation', policy, '--json']);
      expect(r.code, r.stderr).toBe(2);
      const out = JSON.parse(r.stdout);
      expectAborted(out, { at: 2, type: 'Timeout', constraint: 'timeout', names: ['constraints.timeout', '8'] });
      // The ADR's `execution timeout exceeded: %v > %v`, durations as Go prints them.
      expect(out.violation.adr_error).toMatch(/^execution timeout exceeded: \d+(\.\d+)?s > 8s$/);
      expect(out.violation.message.startsWith(`constraint violated: Timeout - ${out.violation.adr_error} — `)).toBe(true);
      // The `sleep` is gone (found by its command line: a pid written inside the sandbox is of its own pid namespace).
      const pidFile = path.join(root, 'pid.txt');
      expect(sleepersRunning('60.4213')).toEqual([]);
      expectPartialWork(policy, ['a.txt'], ['b.txt']);
      if (policy === 'rollback') expect(fs.existsSync(pidFile)).toBe(false);
      expect(out.calls[2].output).toContain("stopped at the run's deadline");
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the --json report is read field by field, and each expect below checks the field it reads.
function expectAborted(out: any, s: Pick<Scenario, 'at' | 'type' | 'constraint' | 'names' | 'adr'>): void {
  expect(out.ok).toBe(false);
  expect(out.status).toBe('failed');
  // Caught at once: the offending call is the last one that ran.
  expect(out.calls).toHaveLength(s.at + 1);
  expect(out.skipped).toBeGreaterThanOrEqual(1);
  for (const c of out.calls.slice(0, s.at)) expect(c.status).toBe('ok');
  const offending = out.calls[s.at];
  expect(offending.status).toBe('refused');
  expect(offending.error.code).toBe('E_CONSTRAINT');
  expect(out.violation).toMatchObject({ type: s.type, constraint: s.constraint, call: s.at });
  for (const text of s.names) expect(out.violation.message).toContain(text);
  if (s.adr !== undefined) {
    // The ADR's sentence first, verbatim, then ours.
    expect(out.violation.adr_error).toBe(s.adr);
    expect(out.violation.message.startsWith(`constraint violated: ${s.type} - ${s.adr} — `)).toBe(true);
    expect(offending.error.message).toContain(s.adr);
  }
  // Evidence in the run folder.
  const dir = out.run_dir as string;
  expect(dir).toContain(path.join('.editwarden', 'runs', out.run_id));
  const metrics = JSON.parse(fs.readFileSync(path.join(dir, 'metrics.json'), 'utf8'));
  expect(metrics.execution_id).toBe(out.run_id);
  expect(metrics.constraints.violations[0]).toMatchObject({ type: s.type, constraint: s.constraint });
  expect(Object.keys(metrics.constraints)).toEqual(['configured', 'actual', 'utilization', 'violations']);
  expect(metrics.calls).toBe(s.at + 1);
  const report = fs.readFileSync(path.join(dir, 'violation.md'), 'utf8');
  expect(report).toContain(`# Constraint violation: ${s.type}`);
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'violation.json'), 'utf8')).violation.type).toBe(s.type);
}

function expectPartialWork(policy: 'keep' | 'rollback', kept: string[], never: string[]): void {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  if (policy === 'keep') {
    expect(readme).toBe('changed readme\n');
    for (const f of kept) expect(fs.existsSync(path.join(root, f)), f).toBe(true);
  } else {
    expect(readme).toBe('original readme\n');
    for (const f of kept) expect(fs.existsSync(path.join(root, f)), f).toBe(false);
  }
  for (const f of never) expect(fs.existsSync(path.join(root, f)), f).toBe(false);
}

function sleepersRunning(seconds: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\u0000${seconds}\u0000` && !/\) [ZX] /.test(stat);
      } catch {
        return false;
      }
    });
}

describe('text output', () => {
  it('prints each call, the violation with its limit and hint, and where the report is', () => {
    const r = execCli(root, jsonl([write('a.txt'), write('vendor/lib.go')]));
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/#1 ok write_file a\.txt \+1 -0/);
    expect(r.stdout).toMatch(/#2 VIOLATION write_file/);
    expect(r.stdout).toContain('constraints.denied_patterns');
    expect(r.stdout).toContain('hint:');
    expect(r.stdout).toMatch(/files 1\/10 · lines 1\/500/);
    expect(r.stdout).toContain('violation.md');
    expect(r.stdout).toContain('partial work is kept');
  });
});
