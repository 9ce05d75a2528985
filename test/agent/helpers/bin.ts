/** Test helpers: the real `bin/editwarden` on a temp project, with a replay script as the model. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';

const REPO = path.resolve(__dirname, '../../..');
export const BIN = path.join(REPO, 'bin/editwarden');

export function ensureBuilt(): void {
  if (!fs.existsSync(path.join(REPO, 'dist/cli/main.js'))) spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'inherit' });
}

const made: string[] = [];

/** A real temp project (removed by cleanup()). */
export function tempProject(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-designs-')));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  made.push(root);
  return root;
}

export function cleanup(): void {
  for (const r of made.splice(0)) fs.rmSync(r, { recursive: true, force: true });
}

/** Writes the replay script beside the project (not inside it) and returns `replay:FILE`. */
export function script(root: string, turns: unknown[]): string {
  const file = `${root}.script.json`;
  fs.writeFileSync(file, JSON.stringify({ turns }));
  made.push(file);
  return `replay:${file}`;
}

export function bin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: options.cwd ?? REPO,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', ...options.env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function jsonl(file: string): Array<Record<string, unknown>> {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The one run folder (holding `marker`, when given: the Editor's baseline has a run folder of its own). */
export function runDirOf(root: string, marker?: string): string {
  const runs = fs
    .readdirSync(path.join(root, '.editwarden/runs'))
    .filter((d) => !d.startsWith('.'))
    .filter((d) => !marker || fs.existsSync(path.join(root, '.editwarden/runs', d, marker)));
  if (runs.length !== 1) throw new Error(`expected one run folder, found ${runs.join(', ')}`);
  return path.join(root, '.editwarden/runs', runs[0] as string);
}

/** Runs `argv` under Node and sends one Ctrl-C (SIGINT) as soon as its stdout shows `marker`: a person stopping a run mid-turn. */
export async function interruptWhen(argv: string[], marker: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, argv, { env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  let sent = false;
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => {
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!sent && stdout.includes(marker)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (c) => resolve(c));
  });
  return { code, stdout, stderr };
}
