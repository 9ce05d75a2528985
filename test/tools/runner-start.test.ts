/**
 * `ToolRunner.start({ project, run, toolset })`: the runner takes the opened
 * project whole (host/project.ts) — its edit options and language hooks, its
 * transaction layer — and the toolset's tools and config; an overlay view is
 * the only piece a caller hands in beside it (a dry run).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, withOverrides } from '../../src/config/config.js';
import { openProject } from '../../src/host/project.js';
import { runProfile } from '../../src/runs/profile.js';
import { Run } from '../../src/runs/run.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { toolsetFor } from '../../src/tools/toolset.js';
import { OverlayView } from '../../src/workspace/overlay.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-runner-start-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const SIX_LINES = 'a\nb\nc\nd\ne\nf\n';
/** Shrinking six lines to one is a dramatic reduction only under this config's rule (the engine's default starts at 20 lines). */
const shrinkRule = () => withOverrides(defaultConfig(), { edit: { dramatic_reduction: { min_lines: 3, ratio: 0.5 } } });
const shrink = { tool: 'write_file', args: { path: 'six.txt', content: 'a\n', overwrite: true } };

describe('a runner started with the project', () => {
  it("plans with the project's edit options (made once, when the project was opened)", async () => {
    fs.writeFileSync(path.join(root, 'six.txt'), SIX_LINES);
    const project = openProject(root, shrinkRule());
    const record = await ToolRunner.start({ project, artifacts: false }).call(shrink);
    expect(record.error?.code).toBe('E_DRAMATIC_REDUCTION');
    expect(fs.readFileSync(path.join(root, 'six.txt'), 'utf8')).toBe(SIX_LINES);
  });

  it("serves the toolset's tools under the toolset's config, in the run it is given", async () => {
    fs.writeFileSync(path.join(root, 'six.txt'), SIX_LINES);
    const project = openProject(root, defaultConfig());
    const run = new Run({ profile: runProfile('headless', { config: project.config }) });
    const toolset = { ...toolsetFor(run.profile, project.config), tools: [readFileTool] };
    const runner = ToolRunner.start({ project, run, toolset, artifacts: false });
    expect(runner.run).toBe(run);
    expect((await runner.call(shrink)).error?.code).toBe('E_UNKNOWN_TOOL');
    expect((await runner.call({ tool: 'read_file', args: { path: 'six.txt' } })).ok).toBe(true);
  });

  it("works on the view it is handed (an overlay: nothing reaches the disk), with the project's edit options still", async () => {
    fs.writeFileSync(path.join(root, 'six.txt'), SIX_LINES);
    fs.writeFileSync(path.join(root, 'two.txt'), 'x\ny\n');
    const project = openProject(root, shrinkRule());
    const view = new OverlayView(project.ws);
    const runner = ToolRunner.start({ project, view, artifacts: false });
    expect((await runner.call(shrink)).error?.code).toBe('E_DRAMATIC_REDUCTION');
    const record = await runner.call({ tool: 'write_file', args: { path: 'two.txt', content: 'z\n', overwrite: true } });
    expect(record.ok).toBe(true);
    expect(fs.readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('x\ny\n');
    expect(view.read('two.txt')?.bytes.toString('utf8')).toBe('z\n');
  });
});
