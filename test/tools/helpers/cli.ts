import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const REPO = path.resolve(__dirname, '../../..');
const BIN = path.join(REPO, 'bin/editwarden');

let program: string | null = null;

/** The real binary when it knows `exec` (src/cli/main.ts registers it), otherwise the stand-in with the same registrar. */
function execProgram(): string {
  if (program) return program;
  if (!fs.existsSync(path.join(REPO, 'dist/cli/commands/exec.js'))) {
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'inherit' });
  }
  const probe = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
  // Always the real binary: a silent stand-in would hide a broken CLI.
  if (probe.status !== 0 || !/^\s+exec\b/m.test(probe.stdout)) throw new Error(`bin/editwarden does not list exec:\n${probe.stdout}${probe.stderr}`);
  program = BIN;
  return program;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `editwarden exec <calls> ...flags` in `root` as a real process. */
export function execCli(root: string, calls: string, flags: string[] = [], env: NodeJS.ProcessEnv = {}): CliResult {
  const file = path.join(root, '..', `${path.basename(root)}-calls.jsonl`);
  fs.writeFileSync(file, calls);
  const r = spawnSync(process.execPath, [execProgram(), 'exec', file, '--root', root, ...flags], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', ...env },
  });
  fs.rmSync(file, { force: true });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function jsonl(calls: Array<{ tool: string; args?: unknown; tokens?: number }>): string {
  return `${calls.map((c) => JSON.stringify(c)).join('\n')}\n`;
}
