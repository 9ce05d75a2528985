/**
 * The headless constraint ADR, verbatim, through the real binary: its own YAML works (apply_diff
 * included, task_completion always allowed), an unknown tool name is a config error, a write to a
 * denied pattern (.git/** too) is a Pattern violation with exit 2, and the run summary says failed
 * with the ADR's `constraint violated: <Type> - <detail>`. Also: the state folder is ignored by git
 * whichever command creates it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanup, ensureBuilt, jsonl, runDirOf, script, tempProject } from './helpers/bin.js';

beforeAll(ensureBuilt);
afterEach(cleanup);

/** The ADR's "YAML Configuration" block, copied verbatim (comments and blank lines with trailing spaces included). */
const ADR_YAML = `constraints:
  # File modification limits
  max_files: 10              # Max files modified in single run
  max_lines_changed: 500     # Max total lines added/removed
  
  # File access patterns (glob syntax)
  allowed_patterns:
    - "src/**/*.go"          # Only Go files in src/
    - "pkg/**/*.go"
    - "docs/**/*.md"
  
  denied_patterns:
    - "vendor/**"            # Never touch vendored code
    - ".git/**"              # Never modify git metadata
    - "**/*_generated.go"    # Never modify generated files
  
  # Tool restrictions
  allowed_tools:
    - read_file
    - write_file
    - apply_diff
    - search_files
    - list_files
    - execute_command
  # Note: ask_question and converse automatically blocked in headless mode
  
  # Resource limits
  max_tokens: 50000          # Max LLM tokens to consume
  timeout: 300               # Max execution time (seconds)
`;

function goProject(config = ADR_YAML): string {
  const root = tempProject({ '.editwarden.yml': config, 'src/main.go': 'package main\n\nfunc main() {}\n', 'vendor/lib.go': 'package lib\n' });
  spawnSync('git', ['init', '-q'], { cwd: root });
  return root;
}

const done = { tool_calls: [{ name: 'task_completion', arguments: { summary: 'Done.' } }] };

describe("the ADR's own YAML, verbatim", () => {
  it('a run under it can end in task_completion (exit 0): loop-breaking tools are always allowed; apply_diff names apply_patch', () => {
    const root = goProject();
    const model = script(root, [
      { tool_calls: [{ name: 'read_file', arguments: { path: 'src/main.go' } }] },
      { tool_calls: [{ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Update File: src/main.go\n@@\n-func main() {}\n+func main() { println("hi") }\n*** End Patch\n' } }] },
      done,
    ]);
    const r = bin(['run', '--task', 'Say hi.', '--model', model, '--root', root, '--json']);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('completed');
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'src/main.go'), 'utf8')).toContain('println("hi")');
    const start = jsonl(out.transcript)[0] as { tools: string[] };
    expect(start.tools).toEqual(expect.arrayContaining(['apply_patch', 'task_completion', 'read_file', 'write_file']));
  });

  it('an unknown tool name in allowed_tools is a config error naming the key, with a did-you-mean', () => {
    const root = goProject(ADR_YAML.replace('    - search_files\n', '    - serch_files\n'));
    const r = bin(['run', '--task', 'x', '--model', script(root, [done]), '--root', root]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('constraints.allowed_tools');
    expect(r.stderr).toContain('did you mean "search_files"');
    expect(fs.existsSync(path.join(root, '.editwarden/runs'))).toBe(false);
  });
});

describe('a headless write to a denied pattern is a Pattern violation (exit 2)', () => {
  for (const target of ['.git/hooks/pre-commit', 'vendor/lib.go']) {
    it(`write_file ${target}: exit 2, nothing written, the run stops, status failed, "constraint violated: Pattern - …"`, () => {
      const root = goProject();
      const before = fs.existsSync(path.join(root, target)) ? fs.readFileSync(path.join(root, target), 'utf8') : null;
      const model = script(root, [{ tool_calls: [{ name: 'write_file', arguments: { path: target, content: 'echo owned\n', overwrite: true } }] }, done]);
      const r = bin(['run', '--task', 'x', '--model', model, '--root', root, '--json']);
      expect(r.code).toBe(2);
      const out = JSON.parse(r.stdout);
      expect(out.turns).toBe(1);
      expect(out.violation.type).toBe('Pattern');
      expect(out.violation.message).toMatch(/^constraint violated: Pattern - /);
      // The ADR's own sentence leads the detail, verbatim; ours follows.
      expect(out.violation.message.startsWith(`constraint violated: Pattern - file ${target} not allowed by patterns — `)).toBe(true);
      const after = fs.existsSync(path.join(root, target)) ? fs.readFileSync(path.join(root, target), 'utf8') : null;
      expect(after).toBe(before);
      const metrics = JSON.parse(fs.readFileSync(out.metrics, 'utf8'));
      expect(metrics.status).toBe('failed');
      expect(metrics.error).toBe(out.violation.message);
      expect(metrics.result).toMatchObject({ status: 'violation', exit_code: 2 });
      expect(jsonl(out.transcript).at(-1)).toMatchObject({ type: 'end', status: 'violation', exit_code: 2 });
    });
  }
});

describe('the state folder is ignored by git whichever command creates it', () => {
  it('`run` creates .editwarden/ with its ignore file: git status does not show it', () => {
    const root = goProject();
    fs.rmSync(path.join(root, '.editwarden.yml'));
    spawnSync('git', ['add', '-A'], { cwd: root });
    spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'], { cwd: root });
    bin(['run', '--task', 'x', '--model', script(root, [done]), '--root', root, '--json']);
    expect(fs.existsSync(runDirOf(root))).toBe(true);
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;
    expect(status).toBe('');
  });

  it('`verify` too', () => {
    const root = goProject('verify:\n  build: "node -e 0"\n');
    spawnSync('git', ['add', '-A'], { cwd: root });
    spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'], { cwd: root });
    const r = bin(['verify', '--root', root]);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(root, '.editwarden'))).toBe(true);
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;
    expect(status).toBe('');
  });
});

describe("apply_diff, the ADR's tool name, works as a call name on every route", () => {
  const PATCH = '*** Begin Patch\n*** Update File: src/main.go\n@@\n-func main() {}\n+func main() { println("hi") }\n*** End Patch\n';
  const patched = (root: string): string => fs.readFileSync(path.join(root, 'src/main.go'), 'utf8');

  it('agent: a run under the ADR YAML whose model calls apply_diff', () => {
    const root = goProject();
    const model = script(root, [{ tool_calls: [{ name: 'apply_diff', arguments: { patch: PATCH } }] }, done]);
    const r = bin(['run', '--task', 'Say hi.', '--model', model, '--root', root, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(patched(root)).toContain('println("hi")');
  });

  it('tool runner: editwarden exec of an apply_diff call', () => {
    const root = goProject();
    const calls = path.join(root, '..', `${path.basename(root)}-calls.jsonl`);
    fs.writeFileSync(calls, `${JSON.stringify({ tool: 'apply_diff', args: { patch: PATCH } })}\n`);
    try {
      const r = bin(['exec', calls, '--root', root, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
    } finally {
      fs.rmSync(calls, { force: true });
    }
    expect(patched(root)).toContain('println("hi")');
  });

  it('a tool the ADR YAML does not allow is still refused under its alias rules (write_file removed from the list: apply_diff still works, write_file does not)', () => {
    const root = goProject(ADR_YAML.replace('    - write_file\n', ''));
    const model = script(root, [{ tool_calls: [{ name: 'apply_diff', arguments: { patch: PATCH } }] }, { tool_calls: [{ name: 'write_file', arguments: { path: 'src/x.go', content: 'package main\n' } }] }, done]);
    const r = bin(['run', '--task', 'x', '--model', model, '--root', root, '--json']);
    expect(r.code).toBe(2);
    expect(patched(root)).toContain('println("hi")');
    expect(JSON.parse(r.stdout).violation.message.startsWith('constraint violated: ToolRestriction - tool write_file not in allowed list — ')).toBe(true);
  });
});

describe('apply_diff over MCP', () => {
  it('is callable by that name (not listed: one name per tool)', async () => {
    const { call, connect } = await import('../mcp/helpers/server.js');
    const root = goProject('');
    const server = await connect(['--root', root]);
    try {
      const { tools } = await server.client.listTools();
      expect(tools.map((t) => t.name)).not.toContain('apply_diff');
      const r = await call(server.client, 'apply_diff', { patch: '*** Begin Patch\n*** Update File: src/main.go\n@@\n-func main() {}\n+func main() { println("hi") }\n*** End Patch\n' });
      expect(r.isError, r.text).toBe(false);
    } finally {
      await server.close();
    }
    expect(fs.readFileSync(path.join(root, 'src/main.go'), 'utf8')).toContain('println("hi")');
  });
});
