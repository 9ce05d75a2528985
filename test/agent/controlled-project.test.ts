/**
 * A controlled edit session takes the opened Project whole: its one edit is
 * planned with the project's `applyOptions` (the config's edit options, made
 * once by host/project.ts). The deprecated form — a workspace with `config` in
 * the options — is made a Project at the door, and refused without a config.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlledEditSession } from '../../src/agent/controlled.js';
import { defaultConfig, withOverrides } from '../../src/config/config.js';
import { openProject } from '../../src/host/project.js';
import { isEditwardenError } from '../../src/errors.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-controlled-project-')));
  fs.writeFileSync(path.join(root, 'six.txt'), SIX_LINES);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const SIX_LINES = 'a\nb\nc\nd\ne\nf\n';
/** Six lines to one is a dramatic reduction only under this config's rule (the engine's default starts at 20 lines). */
const shrinkRule = () => withOverrides(defaultConfig(), { edit: { dramatic_reduction: { min_lines: 3, ratio: 0.5 } }, verify: { build: 'true' } });
const shrink = { filename: 'six.txt', old_text: 'b\nc\nd\ne\nf\n', new_text: '' };

describe('a controlled edit session over the project', () => {
  it("plans its one edit with the project's edit options", async () => {
    const session = new ControlledEditSession(openProject(root, shrinkRule()), { reportPath: false });
    const outcome = await session.editFile(shrink);
    expect(outcome.error?.code).toBe('E_DRAMATIC_REDUCTION');
    expect(outcome.edit_applied).toBe(false);
    expect(fs.readFileSync(path.join(root, 'six.txt'), 'utf8')).toBe(SIX_LINES);
  });

  it('the deprecated form (a workspace and its config) plans with the same edit options', async () => {
    const config = shrinkRule();
    const { ws } = openProject(root, config);
    const outcome = await new ControlledEditSession(ws, { config, reportPath: false }).editFile(shrink);
    expect(outcome.error?.code).toBe('E_DRAMATIC_REDUCTION');
  });

  it('the deprecated form without a config is refused with E_USAGE and a hint', () => {
    const { ws } = openProject(root, defaultConfig());
    let thrown: unknown;
    try {
      new ControlledEditSession(ws);
    } catch (error) {
      thrown = error;
    }
    expect(isEditwardenError(thrown) && thrown.code).toBe('E_USAGE');
    expect(isEditwardenError(thrown) && thrown.hint).toContain('openProject');
  });
});
