import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { trustRepoConfig } from '../trust-config.js';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin/editwarden');
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function project(files: Record<string, string | Buffer>, config?: string): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-budget-')));
  roots.push(root);
  for (const [rel, body] of Object.entries(files)) fs.writeFileSync(path.join(root, rel), body);
  if (config !== undefined) fs.writeFileSync(path.join(root, '.editwarden.yml'), config);
  // Checkpoint limits are the person's (raising one, or shrinking the store, loosens): trusted, as `editwarden trust` would.
  if (config !== undefined) trustRepoConfig(root);
  spawnSync('git', ['init', '-q'], { cwd: root });
  return root;
}

function cli(root: string, args: string[], input?: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, ...args, '--root', root], { cwd: root, encoding: 'utf8', input, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const command = (cmd: string): string => `${JSON.stringify({ tool: 'execute_command', args: { command: cmd } })}\n`;

/** Bytes the checkpoint store occupies on disk (blocks, so a copied hole would show). */
function storeBytes(root: string): number {
  const dir = path.join(root, '.editwarden', 'checkpoints', 'blobs');
  let total = 0;
  const walk = (d: string): void => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else total += fs.statSync(p).blocks * 512;
    }
  };
  walk(dir);
  return total;
}

describe('checkpoints.max_file_bytes', () => {
  it('refuses a command whose effects checkpoint would copy a 1 GiB sparse file (E_CHECKPOINT_TOO_LARGE), before reading it, and the command does not run', () => {
    const root = project({ 'a.txt': 'hi\n' });
    fs.closeSync(fs.openSync(path.join(root, 'big.bin'), 'w'));
    fs.truncateSync(path.join(root, 'big.bin'), 1024 * 1024 * 1024);
    const t0 = Date.now();
    const r = cli(root, ['exec', '-', '--show-output'], command('echo ran > b.txt'));
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.out).toContain('E_CHECKPOINT_TOO_LARGE');
    expect(r.out).toContain('big.bin');
    expect(r.out).toMatch(/\.gitignore/);
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
    expect(storeBytes(root)).toBeLessThan(1024 * 1024);
  }, 60_000);

  it('stores a sparse file as sparse when the limit allows it: the store grows by its data, not its size', () => {
    const root = project({ 'a.txt': 'hi\n' }, 'checkpoints:\n  max_file_bytes: 2147483648\n');
    const fd = fs.openSync(path.join(root, 'sparse.bin'), 'w');
    fs.writeSync(fd, Buffer.from('data at the start'), 0, 17, 0);
    fs.writeSync(fd, Buffer.from('data at 200 MiB'), 0, 15, 200 * 1024 * 1024);
    fs.closeSync(fd);
    const r = cli(root, ['exec', '-'], command('echo ran > b.txt'));
    expect(r.code, r.out).toBe(0);
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('ran\n');
    expect(storeBytes(root)).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);
});

describe('checkpoints.max_total_bytes', () => {
  it('prunes the oldest checkpoints to make room, then refuses (E_CHECKPOINT_TOO_LARGE) a checkpoint that cannot fit, never storing past the limit', () => {
    const limit = 400_000;
    const root = project({ 'a.txt': 'hi\n' }, `checkpoints:\n  max_total_bytes: ${limit}\n`);
    // Three old checkpoints of 150 KB of random data each: 450 KB, over the limit together.
    for (let i = 0; i < 3; i++) {
      const fd = fs.openSync('/dev/urandom', 'r');
      const buf = Buffer.alloc(150_000);
      fs.readSync(fd, buf, 0, buf.length, null);
      fs.closeSync(fd);
      fs.writeFileSync(path.join(root, `old${i}.bin`), buf);
      expect(cli(root, ['checkpoint', 'create', '--name', `cp${i}`]).code).toBe(0);
      fs.rmSync(path.join(root, `old${i}.bin`));
    }
    const before = cli(root, ['checkpoint', 'list', '--json']).out;
    expect((before.match(/"cp\d"/g) ?? []).length).toBe(3);
    // The command's effects checkpoint needs 100 KB more: the oldest checkpoints go to make room.
    const fd = fs.openSync('/dev/urandom', 'r');
    const fresh = Buffer.alloc(100_000);
    fs.readSync(fd, fresh, 0, fresh.length, null);
    fs.closeSync(fd);
    fs.writeFileSync(path.join(root, 'new.bin'), fresh);
    const ok = cli(root, ['exec', '-'], command('echo ran > b.txt'));
    expect(ok.code, ok.out).toBe(0);
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(true);
    const after = cli(root, ['checkpoint', 'list', '--json']).out;
    expect(after).not.toContain('"cp0"');
    expect(storeBytes(root)).toBeLessThanOrEqual(limit + 64 * 1024);

    // One file larger than the whole store: refused, and nothing of it is kept.
    fs.writeFileSync(path.join(root, 'huge.bin'), Buffer.concat([fresh, fresh, fresh, fresh, fresh]));
    const refused = cli(root, ['exec', '-', '--show-output'], command('echo again > c.txt'));
    expect(refused.out).toContain('E_CHECKPOINT_TOO_LARGE');
    expect(refused.out).toContain('checkpoints.max_total_bytes');
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
    expect(storeBytes(root)).toBeLessThanOrEqual(limit + 64 * 1024);
  }, 90_000);
});
