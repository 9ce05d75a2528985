/**
 * Programs editwarden runs outside the sandbox come from a system folder,
 * never through PATH — where `npx editwarden` (or a person's direnv) puts a
 * project's node_modules/.bin first and a hostile repository can ship its
 * own `python3`, `mkfifo`, `strace`, `stty` or `sync`. A real watch started
 * under a planted PATH, and a check over src/ that no new call runs a
 * program by a bare name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { systemProgram } from '../../src/sandbox/system-program.js';
import { TreeWatch } from '../../src/workspace/checkpoints/tree-watch.js';

const REPO = path.resolve(__dirname, '../..');
const made: string[] = [];
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** A folder of programs that each leave a mark when run: what a hostile repository's node_modules/.bin would hold. */
function planted(names: readonly string[]): { bin: string; mark: string } {
  const bin = temp('ew-planted-');
  const mark = path.join(bin, 'ran');
  for (const name of names) fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho ${name} >> '${mark}'\nexit 0\n`, { mode: 0o755 });
  return { bin, mark };
}

describe('a program run outside the sandbox', () => {
  it('is found in a system folder whatever PATH holds', () => {
    const { bin } = planted(['python3', 'mkfifo', 'strace', 'stty', 'sync']);
    process.env.PATH = `${bin}:${savedPath}`;
    for (const name of ['python3', 'mkfifo', 'stty', 'sync']) {
      const found = systemProgram(name);
      expect(found, name).not.toBeNull();
      expect(path.dirname(found as string), name).not.toBe(bin);
      expect(['/usr/bin', '/usr/local/bin', '/bin']).toContain(path.dirname(found as string));
    }
    expect(systemProgram('no-such-program-here')).toBeNull();
  });

  it('the warm server’s watch, started under a PATH whose python3 and mkfifo are planted, runs neither and still watches', async () => {
    const { bin, mark } = planted(['python3', 'mkfifo']);
    const root = temp('ew-watch-root-');
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
    process.env.PATH = `${bin}:${savedPath}`;
    const watch = new TreeWatch(root);
    try {
      // The helper's first scan runs in the background: sync until it answers (the bound is only room).
      let from: number | null = null;
      for (let i = 0; i < 100 && from === null; i++) {
        from = watch.sync();
        if (from === null) await new Promise((r) => setTimeout(r, 50));
      }
      expect(from).not.toBeNull();
      fs.writeFileSync(path.join(root, 'a.txt'), 'two\n');
      let seen = false;
      for (let i = 0; i < 100 && !seen; i++) {
        watch.sync();
        seen = watch.changesSince(from)?.paths.has('a.txt') ?? false;
        if (!seen) await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen).toBe(true);
      expect(fs.existsSync(mark)).toBe(false);
    } finally {
      watch.stop();
    }
  });

  it('no module of src/ runs a program by a bare name (the allowed ones named, with why)', () => {
    // `sh` in opencode's plugin runs the committed hook command inside opencode's own process, as every client runs its hooks;
    // `git --version` in doctor reports the person's git; `taskkill` is Windows's, where there is no sandbox of ours.
    const allowed = new Set(['src/integrations/opencode-plugin.ts:sh', 'src/cli/commands/doctor.ts:git', 'src/verify/process-group.ts:taskkill', 'src/cli/demo/demo.ts:sh']);
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(p);
        else if (entry.name.endsWith('.ts')) {
          const text = fs.readFileSync(p, 'utf8');
          for (const m of text.matchAll(/\b(?:spawnSync|spawn|execFileSync|execFile|execSync|exec)\(\s*'([^'/][^']*)'/g)) {
            const key = `${path.relative(REPO, p)}:${m[1]}`;
            if (!allowed.has(key)) found.push(key);
          }
        }
      }
    };
    walk(path.join(REPO, 'src'));
    expect(found).toEqual([]);
  });
});
