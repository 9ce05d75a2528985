import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const BIN = path.resolve(__dirname, '../../bin/editwarden');
let root: string;

beforeAll(() => {
  // The CLI runs from dist/; `npm test` builds first, this keeps a lone `vitest run` honest too.
  if (!fs.existsSync(path.resolve(__dirname, '../../dist/cli/main.js'))) {
    spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: path.resolve(__dirname, '../..'), stdio: 'inherit' });
  }
});
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-cli-')));
  fs.writeFileSync(path.join(root, 'Makefile'), 'all:\n\tcc -o app main.c\n');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function cli(args: string[], input?: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('editwarden edit', () => {
  it('applies an edit and prints the diff (exit 0)', () => {
    const r = cli(['edit', 'Makefile', '--old', 'cc -o app', '--new', 'gcc -O2 -o app']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('+\tgcc -O2 -o app main.c');
    expect(fs.readFileSync(path.join(root, 'Makefile'), 'utf8')).toBe('all:\n\tgcc -O2 -o app main.c\n');
  });

  it('--dry-run prints the diff and writes nothing', () => {
    const r = cli(['edit', 'Makefile', '--old', 'cc', '--new', 'clang', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('dry-run');
    expect(r.stdout).toContain('-\tcc -o app main.c');
    expect(fs.readFileSync(path.join(root, 'Makefile'), 'utf8')).toBe('all:\n\tcc -o app main.c\n');
  });

  it('a refused edit exits 1 with code, message and hint, and writes nothing', () => {
    const r = cli(['edit', 'Makefile', '--old', 'nope', '--new', 'x']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('E_NOT_FOUND');
    expect(r.stdout).toContain('hint:');
  });

  it('--json prints the result contract', () => {
    const r = cli(['edit', 'Makefile', '--old', 'all:', '--new', 'build:', '--json']);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(true);
    expect(out.results[0]).toMatchObject({ path: 'Makefile', status: 'applied', action: 'edit', strategy: 'exact', added: 1, removed: 1 });
    expect(out.results[0].diff).toContain('+build:');
  });

  it('reads the JSON edit request of DESIGN.md on stdin with --request -', () => {
    const request = { filename: 'Makefile', old_text: 'all:', new_text: 'everything:' };
    const r = cli(['edit', '--request', '-', '--json'], JSON.stringify(request));
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'Makefile'), 'utf8')).toContain('everything:');
  });

  it('an unknown field in a JSON request is E_PARSE naming the field', () => {
    const r = cli(['edit', '--request', '-', '--json'], JSON.stringify({ path: 'Makefile', old_text: 'a', new_text: 'b', colour: 1 }));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'E_PARSE' });
    expect(r.stdout).toContain('colour');
  });

  it('--old-file / --new-file read the texts from files', () => {
    fs.writeFileSync(path.join(root, 'old.txt'), 'all:');
    fs.writeFileSync(path.join(root, 'new.txt'), 'release:');
    const r = cli(['edit', 'Makefile', '--old-file', 'old.txt', '--new-file', 'new.txt']);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'Makefile'), 'utf8').startsWith('release:')).toBe(true);
  });

  it('refuses wiping a file through an edit (E_DRAMATIC_REDUCTION) unless --force; an explicit --mode overwrite is applied', () => {
    const big = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    fs.writeFileSync(path.join(root, 'big.txt'), big);
    fs.writeFileSync(path.join(root, 'old.txt'), big);
    const refused = cli(['edit', 'big.txt', '--old-file', 'old.txt', '--new', 'tiny\n']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('E_DRAMATIC_REDUCTION');
    const forced = cli(['edit', 'big.txt', '--mode', 'overwrite', '--new', 'tiny\n']);
    expect(forced.code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe('tiny\n');
  });

  it('--root confines the edit to that folder', () => {
    const r = cli(['edit', '../outside.txt', '--mode', 'create', '--new', 'x', '--root', root]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('E_OUTSIDE_ROOT');
  });

  it('usage errors exit 64', () => {
    expect(cli(['edit', 'Makefile', '--mode', 'explode', '--new', 'x']).code).toBe(64);
    expect(cli(['edit', '--bogus-flag']).code).toBe(64);
  });

  it('colour only when asked for (no colour on a pipe, none with NO_COLOR)', () => {
    const plain = cli(['edit', 'Makefile', '--old', 'all:', '--new', 'x:', '--dry-run']);
    expect(plain.stdout).not.toContain('\u001b[');
    const forced = cli(['edit', 'Makefile', '--old', 'all:', '--new', 'x:', '--dry-run'], undefined, { FORCE_COLOR: '1' });
    expect(forced.stdout).toContain('\u001b[');
    const no = cli(['edit', 'Makefile', '--old', 'all:', '--new', 'x:', '--dry-run'], undefined, { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(no.stdout).not.toContain('\u001b[');
  });

  it('an invalid config is refused before anything runs', () => {
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'edit:\n  strict: maybe\n');
    const r = cli(['edit', 'Makefile', '--old', 'all:', '--new', 'x:']);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('edit.strict');
    expect(fs.readFileSync(path.join(root, 'Makefile'), 'utf8')).toContain('all:');
  });
});
