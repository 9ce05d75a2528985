import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, describe, expect, test } from 'vitest';
import { registerDetect } from '../../src/cli/commands/detect.js';
import { registerVerify } from '../../src/cli/commands/verify.js';
import type { Io } from '../../src/cli/output.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

class Capture extends Writable {
  text = '';
  isTTY = false;
  columns = 80;
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Runs `editwarden <args>` with only the verify and detect commands registered (main.ts wires them for real). */
async function cli(args: string[], options: { tty?: boolean } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  stderr.isTTY = options.tty === true;
  const io: Io = { stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: '1' } };
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => stdout.write(s), writeErr: (s) => stderr.write(s) });
  registerVerify(program, io, (c) => (code = c));
  registerDetect(program, io, (c) => (code = c));
  try {
    await program.parseAsync(['node', 'editwarden', ...args]);
  } catch {
    code = 64;
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}

function project(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ew-cli-${name}-`));
  temps.push(dir);
  fs.cpSync(path.join(here, '../fixtures/verify/projects', name), dir, { recursive: true });
  return dir;
}

describe('editwarden verify', () => {
  test('exit 0 when build and tests pass; both steps reported', async () => {
    const root = project('make-c');
    const r = await cli(['verify', '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^PASS build {2}make {2}\(exit 0, [\d.]+s\) {2}evidence: \.editwarden\/runs\/\d{8}T\d{6}Z-[0-9a-f]{6}\/verify\/1\/$/m);
    expect(r.stdout).toMatch(/^PASS test {2}make test .*verify\/2\/$/m);
    // Not a TTY: plain progress lines, no cursor control.
    expect(r.stderr).toContain('verify build: make\n');
    expect(r.stderr).not.toContain('\u001b[K');
  });

  test('exit 3 when the build fails; diagnostics shown; tests skipped', async () => {
    const root = project('make-c');
    fs.writeFileSync(path.join(root, 'main.c'), 'int main(void) { return missing; }\n');
    const r = await cli(['verify', '--root', root]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^FAIL build {2}make {2}\(exit 2/m);
    expect(r.stdout).toMatch(/main\.c:1:\d+ error: ‘missing’ undeclared|main\.c:1:\d+ error: 'missing' undeclared/);
    expect(r.stdout).toMatch(/^SKIP test/m);
  });

  test('--json: the verdict, the run id and every step', async () => {
    const root = project('make-c');
    const r = await cli(['verify', '--root', root, '--cmd', 'echo hello; exit 4', '--json']);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.run_id).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    expect(out.steps).toHaveLength(1);
    expect(out.steps[0]).toMatchObject({ kind: 'cmd', command: 'echo hello; exit 4', exit_code: 4, passed: false, tail: 'hello' });
    expect(r.stderr).toBe('');
  });

  test('--timeout ends a slow command', async () => {
    const root = project('make-c');
    const r = await cli(['verify', '--root', root, '--cmd', 'sleep 20', '--timeout', '0.3', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).steps[0]).toMatchObject({ timed_out: true });
  });

  test('Ctrl-C (SIGINT to editwarden) ends the command group, which the terminal cannot reach', async () => {
    const root = project('make-c');
    const listenersBefore = process.listenerCount('SIGINT');
    // A pid written inside the sandbox is that of its pid namespace: find the child by its unique command line instead.
    const pending = cli(['verify', '--root', root, '--cmd', 'sleep 30.4172 & echo $! > child.pid; wait', '--json']);
    // Wait until the command has started its child, then interrupt (the bound is only room: a loaded machine may take
    // seconds to start the sandbox, and an interrupt before it would prove nothing about the child).
    for (let i = 0; i < 3000 && !fs.existsSync(path.join(root, 'child.pid')); i++) await new Promise((r) => setTimeout(r, 10));
    expect(fs.existsSync(path.join(root, 'child.pid'))).toBe(true);
    process.emit('SIGINT');
    const r = await pending;
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).steps[0]).toMatchObject({ aborted: true, passed: false });
    const { pidRunning } = await import('../../src/verify/process-group.js');
    const running = fs
      .readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === 'sleep\u000030.4172\u0000' && pidRunning(Number(p));
        } catch {
          return false;
        }
      });
    expect(running).toEqual([]);
    expect(process.listenerCount('SIGINT')).toBe(listenersBefore);
  });

  test('on a TTY a live line shows the command, the elapsed time and the last output line', async () => {
    const root = project('make-c');
    const r = await cli(['verify', '--root', root, '--cmd', 'echo first-line; echo compiling-widget; sleep 0.6'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\r\u001b\[K⏵ echo first-line; echo compiling-widget; sleep 0\.6 {2}\d+\.\ds/);
    expect(r.stderr).toContain('│ compiling-widget');
    // The line is cleared at the end, so the summary starts on a clean line.
    expect(r.stderr.endsWith('\r\u001b[K')).toBe(true);
  });

  test('--baseline records; the next run reports new failures apart from old ones', async () => {
    const root = project('make-c');
    fs.writeFileSync(path.join(root, 'main.c'), 'int main(void) {\n  return old_error;\n}\n');
    const first = await cli(['verify', '--root', root, '--build', '--baseline']);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain('baseline recorded: 1 failing');
    fs.writeFileSync(path.join(root, 'main.c'), 'int main(void) {\n  int x = new_error;\n  return old_error + x;\n}\n');
    const second = await cli(['verify', '--root', root, '--build']);
    expect(second.code).toBe(3);
    expect(second.stdout).toContain('baseline: 1 new, 1 already failing, 0 fixed — regressed');
    expect(second.stdout).toMatch(/new_error/);
    expect(second.stdout).not.toMatch(/error: ‘old_error’|error: 'old_error'/);
  });

  test('usage errors exit 64: two step flags, a bad timeout, nothing to run', async () => {
    const root = project('make-c');
    expect((await cli(['verify', '--root', root, '--build', '--test'])).code).toBe(64);
    expect((await cli(['verify', '--root', root, '--timeout', 'soon'])).code).toBe(64);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-cli-empty-'));
    temps.push(empty);
    const r = await cli(['verify', '--root', empty]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('E_CONFIG');
  });

  test('verify.build from .editwarden.yml is used', async () => {
    const root = project('make-c');
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'verify:\n  build: "echo configured-build"\n');
    const r = await cli(['verify', '--root', root, '--build', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).steps[0]).toMatchObject({ command: 'echo configured-build', source: 'config' });
  });
});

describe('editwarden detect', () => {
  test('--json lists kinds, commands and what verify will run', async () => {
    const r = await cli(['detect', '--root', path.join(here, '../fixtures/verify/detect/cmake-built'), '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, kinds: ['cmake'], build: 'cmake --build build', framework: 'gtest', effective: { build: 'cmake --build build', build_source: 'detected' } });
  });

  test('plain output names the commands and the evidence', async () => {
    const r = await cli(['detect', '--root', path.join(here, '../fixtures/verify/detect/node-npm-vitest')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('build:     npm run build');
    expect(r.stdout).toContain('framework: vitest');
    expect(r.stdout).toContain('node [npm]: build npm run build · test npm test (vitest) · from package.json, package-lock.json');
  });
});
