/**
 * Where a limit was set and how to raise it (config/layers.ts `limitSource`), as a refusal says it: the file and
 * the key, for each layer; and the guard's refusal carrying it.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { type ConfigLayers, limitSource, NO_LAYERS } from '../../src/config/layers.js';
import { ConstraintGuard } from '../../src/guard/constraints.js';

const layers = (setBy: ConfigLayers['setBy'], ignored: ConfigLayers['ignored'] = []): ConfigLayers => ({
  ...NO_LAYERS,
  userFile: '/home/me/.config/editwarden/config.yml',
  repositoryFile: '/p/.editwarden.yml',
  trustCommand: 'editwarden trust --root /p',
  setBy,
  ignored,
});

describe('limitSource names the file and the key', () => {
  it('set by the repository: that file; raise it in your own file (yours wins) or in the repository file', () => {
    const s = limitSource(layers({ 'constraints.max_files': 'repository' }), 'constraints.max_files');
    expect(s.where).toBe('set in /p/.editwarden.yml');
    expect(s.raise).toBe('raise constraints.max_files in your own config /home/me/.config/editwarden/config.yml (your value wins over /p/.editwarden.yml for you, no trust needed), or in /p/.editwarden.yml for everyone');
  });

  it('set in your own config: that file', () => {
    expect(limitSource(layers({ 'constraints.max_lines_changed': 'yours' }), 'constraints.max_lines_changed')).toEqual({
      where: 'set in /home/me/.config/editwarden/config.yml',
      raise: 'raise constraints.max_lines_changed in /home/me/.config/editwarden/config.yml',
    });
  });

  it('the default, with a raise the untrusted repository file asked for named as not applied', () => {
    const s = limitSource(layers({}, [{ key: 'constraints.max_files', value: '40', baseline: '10' }]), 'constraints.max_files');
    expect(s.where).toBe("editwarden's default for this kind of run, no config sets it (/p/.editwarden.yml sets constraints.max_files: 40, not applied until you trust that file: editwarden trust --root /p)");
    expect(s.raise).toBe('set constraints.max_files in your own config /home/me/.config/editwarden/config.yml (no trust needed)');
  });

  it("the guard's refusal carries them: the key and where it was set in the message, the file to raise it in in the hint", () => {
    const l = layers({ 'constraints.max_files': 'repository' });
    const guard = new ConstraintGuard({ ...defaultConfig().constraints, max_files: 1 }, { limitSource: (key) => limitSource(l, key) });
    const v = guard.checkChanges([
      { path: 'a.txt', added: 1, removed: 0 },
      { path: 'b.txt', added: 1, removed: 0 },
    ]);
    expect(v?.message).toContain('over the limit of 1 (constraints.max_files, set in /p/.editwarden.yml)');
    expect(v?.hint).toBe(
      'Finish with the files already changed, raise constraints.max_files in your own config /home/me/.config/editwarden/config.yml (your value wins over /p/.editwarden.yml for you, no trust needed), or in /p/.editwarden.yml for everyone, or split the task into smaller runs.',
    );
    // Without a source (a library caller's own config): the key and its flag, as before.
    expect(
      new ConstraintGuard({ ...defaultConfig().constraints, max_files: 1 }).checkChanges([
        { path: 'a.txt', added: 1, removed: 0 },
        { path: 'b.txt', added: 1, removed: 0 },
      ])?.hint,
    ).toContain('raise constraints.max_files (or --max-files)');
  });
});
