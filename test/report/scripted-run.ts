/**
 * A real headless run through the binary (`editwarden exec`) that leaves one
 * event of each kind a report must show: an applied edit (a diff line with
 * `</pre><script>`), a created file whose name holds `<script>`, a refused
 * edit (E_NOT_FOUND), a command that changes a file and exits 3, and a
 * violation (max_files) — then the run's end.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../temp-dirs.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');

export const SCRIPTED = {
  diffLine: '+hi </pre><script>alert("diff")</script>',
  scriptPath: '<script>x.txt',
  refusalCode: 'E_NOT_FOUND',
  command: 'echo made > c.txt; exit 3',
  violation: 'FileModification',
};

export function scriptedRun(): { root: string; runId: string } {
  const root = tempDir('ew-report-');
  spawnSync('git', ['init', '-q'], { cwd: root });
  fs.writeFileSync(path.join(root, 'a.txt'), 'hello\nworld\n');
  fs.writeFileSync(path.join(root, 'b.txt'), 'x\n');
  fs.writeFileSync(path.join(root, '.editwarden.yml'), 'constraints:\n  max_files: 3\n');
  const calls = [
    { tool: 'edit_file', args: { path: 'a.txt', old_text: 'hello', new_text: 'hi </pre><script>alert("diff")</script>' }, tokens: 120 },
    { tool: 'write_file', args: { path: SCRIPTED.scriptPath, content: 'new\n' } },
    { tool: 'edit_file', args: { path: 'b.txt', old_text: 'nope', new_text: 'y' } },
    { tool: 'execute_command', args: { command: SCRIPTED.command } },
    { tool: 'write_file', args: { path: 'd.txt', content: 'd\n' } },
  ];
  const file = path.join(root, '.git', 'calls.jsonl');
  fs.writeFileSync(file, calls.map((c) => JSON.stringify(c)).join('\n'));
  const r = spawnSync(process.execPath, [BIN, 'exec', '--root', root, '--json', file], { encoding: 'utf8' });
  if (r.status !== 2) throw new Error(`the scripted run should end with a violation (exit 2), got ${r.status}:\n${r.stdout}\n${r.stderr}`);
  const runId = (JSON.parse(r.stdout) as { run_id?: string; runId?: string }).run_id ?? '';
  return { root, runId };
}

export function cli(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', GITHUB_STEP_SUMMARY: '', ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
