/**
 * The CLI bundle the binary runs (scripts/bundle-cli.mjs → dist/cli-bundle/):
 * it holds no absolute path of the machine that built it, and code that finds
 * files next to itself (`import.meta.url`) still finds them from inside it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const REPO = fs.realpathSync(path.resolve(__dirname, '../..'));
const BUNDLE = path.join(REPO, 'dist', 'cli-bundle');
const BIN = path.join(REPO, 'bin', 'editwarden');

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bundle-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the CLI bundle', () => {
  it('is what bin/editwarden runs', () => {
    expect(fs.readFileSync(BIN, 'utf8')).toContain("import('../dist/cli-bundle/cli.mjs')");
    expect(fs.existsSync(path.join(BUNDLE, 'cli.mjs'))).toBe(true);
  });

  it("contains no absolute path of this machine, nor do the commands' own bundles (dist/cli-command/)", () => {
    // The checkout, and anything inside the home or temp folder (the bare names, `/root` or `/tmp`, are fine as literals).
    const places = [REPO, path.resolve(__dirname, '../..'), `${os.homedir()}/`, `${os.tmpdir()}/`].filter((p) => p.length > 2);
    const own = path.join(REPO, 'dist', 'cli-command');
    const files = [...fs.readdirSync(BUNDLE).map((f) => path.join(BUNDLE, f)), ...(fs.readdirSync(own, { recursive: true }) as string[]).map((f) => path.join(own, f)).filter((f) => f.endsWith('.mjs') || f.endsWith('.cjs'))];
    expect(files.some((f) => f.startsWith(own))).toBe(true);
    for (const full of files) {
      const file = path.relative(REPO, full);
      const text = fs.readFileSync(full, 'utf8');
      for (const place of places) expect(text.includes(place), `${file} contains ${place}`).toBe(false);
    }
  });

  it("holds zod's English messages only, not every language's (half of zod's size, parsed by every command)", () => {
    const text = fs
      .readdirSync(BUNDLE)
      .map((file) => fs.readFileSync(path.join(BUNDLE, file), 'utf8'))
      .join('\n');
    expect(text).toContain('// node_modules/zod/v4/locales/en.js');
    expect(text.match(/\/\/ node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)\S+/g) ?? []).toEqual([]);
  });

  it('keeps paths relative to the package: the hook rewrites a Bash call to run this bin/editwarden', () => {
    const input = JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'true' } });
    const r = spawnSync(process.execPath, [BIN, 'hook', 'claude', 'pre-tool-use', '--root', dir], { cwd: dir, input, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`'${BIN}' 'shell'`);
  });

  it("keeps paths relative to the package in a module with a `require` of its own (ast/grammars.js): `ast list` from the command's own bundle loads the grammar", () => {
    // The rewritten import.meta.url lands inside that module, where esbuild renames its `require`: text that called
    // `require(…)` there called the variable it was initialising (`require2 is not a function`, every grammar).
    fs.writeFileSync(path.join(dir, 'greet.py'), 'def greet(name):\n    return name\n');
    const r = spawnSync(process.execPath, [BIN, 'ast', 'list', 'greet.py', '--root', dir], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('greet');
  });

  it('runs every CommonJS bundle strict, and names only what its first lines declare where it replaced import.meta', () => {
    // A directive counts only at the top of the file: anything put before it would run the whole bundle sloppy.
    const dirs = [path.join(REPO, 'dist', 'cli-command'), path.join(REPO, 'dist', 'hook-client')];
    const files = dirs.flatMap((d) => (fs.readdirSync(d, { recursive: true }) as string[]).filter((f) => f.endsWith('.cjs')).map((f) => path.join(d, f)));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      expect(/^(['"])use strict\1;/.test(text), `${path.relative(REPO, file)} starts with "use strict"`).toBe(true);
      // The bundle's own place is read once, at its top; a module's own `require`/`__dirname` never stands in for it.
      const body = text.slice(text.indexOf('\n', text.indexOf('__editwarden')) + 1);
      expect(body.match(/pathToFileURL\(__filename\)|join\(__dirname/g) ?? [], path.relative(REPO, file)).toEqual([]);
    }
  });

  it('keeps paths relative to the package: doctor reads the engines of this package.json', () => {
    const r = spawnSync(process.execPath, [BIN, 'doctor', '--only', 'node', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { ok: boolean }).ok).toBe(true);
  });
});
