import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig, withOverrides } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load.js';
import { DEFAULT_CONFIG, loadConfigFast } from '../../src/config/defaults.js';

describe('configuration', () => {
  it('the fast defaults equal the schema defaults', () => {
    expect(DEFAULT_CONFIG).toEqual(defaultConfig());
  });

  it('precedence: defaults < file < flags', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-config-'));
    fs.writeFileSync(path.join(root, '.editwarden.yml'), 'edit:\n  strict: true\nconstraints:\n  max_files: 3\n');
    const fromFile = loadConfig(root);
    expect(fromFile.edit.strict).toBe(true);
    expect(fromFile.constraints.max_files).toBe(3);
    expect(fromFile.constraints.max_lines_changed).toBe(500);
    expect((await loadConfigFast(root)).constraints.max_files).toBe(3);
    const flagged = withOverrides(fromFile, { constraints: { max_files: 7 } });
    expect(flagged.constraints.max_files).toBe(7);
    expect(flagged.edit.strict).toBe(true);
    fs.rmSync(root, { recursive: true });
  });

  it('an unknown key is named with the nearest key that exists at its level', () => {
    expect(() => parseConfig('constraints:\n  max_file: 3\n')).toThrow('unknown key "constraints.max_file" (did you mean "constraints.max_files"?)');
    expect(() => parseConfig('constraint:\n  max_files: 3\n')).toThrow('unknown key "constraint" (did you mean "constraints"?)');
    expect(() => parseConfig('edit:\n  strictt: true\n')).toThrow('(did you mean "edit.strict"?)');
    // Nothing close: no guess, but the hint lists the keys that exist there.
    try {
      parseConfig('verify:\n  zzzzzzzz: 1\n');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe('.editwarden.yml: unknown key "verify.zzzzzzzz".');
      expect((error as { hint: string }).hint).toContain('the keys here are: build, test');
    }
  });

  it('refuses unknown keys, wrong types, negative limits and invalid globs, naming the key', () => {
    expect(() => parseConfig('edit:\n  strictt: true\n')).toThrow(/edit\.strictt/);
    expect(() => parseConfig('edit:\n  strict: "yes"\n')).toThrow(/edit\.strict/);
    expect(() => parseConfig('constraints:\n  max_files: -1\n')).toThrow(/constraints\.max_files/);
    expect(() => parseConfig('constraints:\n  denied_patterns: ["src/[abc"]\n')).toThrow(/constraints\.denied_patterns\.0/);
    expect(() => parseConfig('edit: [\n')).toThrow(/not valid YAML/);
  });
});

describe('automatic checkpoint retention', () => {
  it('prunes to the newest keep_last checkpoints once there are 10% more, when a command opens the workspace', async () => {
    const { openWorkspace } = await import('../../src/workspace/open.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-retain-'));
    fs.writeFileSync(path.join(root, 'a.txt'), '0\n');
    const { ws, transactions } = openWorkspace(root);
    for (let i = 1; i <= 12; i++) ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: 'a.txt', bytes: Buffer.from(`${i}\n`) }]));
    expect(transactions.checkpoints.list()).toHaveLength(12);
    // 12 ≤ 10 + 1? no: over the slack, so opening prunes to 10.
    const again = openWorkspace(root, { keepLast: 10 });
    const kept = again.transactions.checkpoints.list();
    expect(kept).toHaveLength(10);
    // The newest survive: restoring the newest puts back the content before the 12th write.
    again.transactions.checkpoints.restore(kept[kept.length - 1]!.id);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('11\n');
    // Under the slack nothing is pruned.
    const third = openWorkspace(root, { keepLast: 10 });
    expect(third.transactions.checkpoints.list().length).toBeGreaterThanOrEqual(10);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('allowed_tools names (the ADR)', () => {
  it('an unknown name is a config error naming the key, with a did-you-mean; apply_diff adds apply_patch; task_completion is always in', async () => {
    const { parseConfig } = await import('../../src/config/config.js');
    expect(() => parseConfig('constraints:\n  allowed_tools: [read_file, edit_fle]\n')).toThrow(/constraints\.allowed_tools\.1.*did you mean "edit_file"/);
    const c = parseConfig('constraints:\n  allowed_tools: [read_file, apply_diff]\n');
    expect(c.constraints.allowed_tools).toEqual(expect.arrayContaining(['read_file', 'apply_diff', 'apply_patch', 'task_completion']));
  });

  it('a mistyped tool name is suggested by the same rule as a mistyped key (two swapped neighbours are two edits)', async () => {
    const { parseConfig } = await import('../../src/config/config.js');
    expect(() => parseConfig('constraints:\n  allowed_tools: [raed_fiel]\n')).toThrow('did you mean "read_file"');
    expect(() => parseConfig('constraints:\n  max_flies: 3\n')).toThrow('did you mean "constraints.max_files"');
  });
});
