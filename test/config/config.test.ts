import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig, parseConfig, withOverrides } from '../../src/config/config.js';
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

  it('refuses unknown keys, wrong types, negative limits and invalid globs, naming the key', () => {
    expect(() => parseConfig('edit:\n  strictt: true\n')).toThrow(/edit\.strictt/);
    expect(() => parseConfig('edit:\n  strict: "yes"\n')).toThrow(/edit\.strict/);
    expect(() => parseConfig('constraints:\n  max_files: -1\n')).toThrow(/constraints\.max_files/);
    expect(() => parseConfig('constraints:\n  denied_patterns: ["src/[abc"]\n')).toThrow(/constraints\.denied_patterns\.0/);
    expect(() => parseConfig('edit: [\n')).toThrow(/not valid YAML/);
  });
});
