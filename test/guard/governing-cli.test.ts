/** Through the real binary: `exec --config FILE` — a command that rewrites the config it runs under is a violation (exit 2) and the file is put back. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { trustRepoConfig } from '../trust-config.js';

const BIN = path.resolve(__dirname, '../../bin/editwarden');
let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-governing-cli-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

it('exec --config policy.yml: a sandboxed command cannot write policy.yml (bound read-only as a member of the protected set)', () => {
  const policy = 'constraints:\n  max_files: 5\n  allowed_tools: [execute_command]\n';
  fs.writeFileSync(path.join(root, 'policy.yml'), policy);
  fs.writeFileSync(path.join(root, 'calls.jsonl'), `${JSON.stringify({ tool: 'execute_command', args: { command: "printf 'constraints: {}\\n' > policy.yml" } })}\n`);
  const r = spawnSync(process.execPath, [BIN, 'exec', 'calls.jsonl', '--root', root, '--config', path.join(root, 'policy.yml'), '--json'], { cwd: root, encoding: 'utf8' });
  expect(r.stdout).toContain('Read-only file system');
  expect(fs.readFileSync(path.join(root, 'policy.yml'), 'utf8')).toBe(policy);
});

it('exec --config policy.yml without a sandbox: a command rewriting policy.yml exits 2 with a Pattern violation and the file is put back', () => {
  const policy = 'constraints:\n  max_files: 5\n  allowed_tools: [execute_command]\nsandbox:\n  enabled: false\n  allow_unsandboxed: true\n';
  fs.writeFileSync(path.join(root, 'policy.yml'), policy);
  trustRepoConfig(root, 'policy.yml'); // sandbox off loosens the guard: the person trusts this file
  fs.writeFileSync(path.join(root, 'calls.jsonl'), `${JSON.stringify({ tool: 'execute_command', args: { command: "printf 'constraints: {}\\n' > policy.yml" } })}\n`);
  const r = spawnSync(process.execPath, [BIN, 'exec', 'calls.jsonl', '--root', root, '--config', path.join(root, 'policy.yml'), '--json'], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stdout + r.stderr).toBe(2);
  expect(r.stdout).toContain('protected_paths');
  expect(fs.readFileSync(path.join(root, 'policy.yml'), 'utf8')).toBe(policy);
});
