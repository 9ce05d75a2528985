/**
 * A run's records: metrics.json is written once, when the run finishes, by
 * the runner's finish — with the mode's outcome and sections when the mode
 * gives them — and a second finish writes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { openWorkspace } from '../../src/workspace/open.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-records-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('metrics.json is written once per run, from the one outcome', () => {
  it('finish(closing) writes the outcome and the sections; a later finish neither rewrites nor changes it', async () => {
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
    const { ws, transactions } = openWorkspace(root);
    const runner = ToolRunner.start({ ws, config: defaultConfig(), transactions });
    await runner.call({ tool: 'read_file', args: { path: 'a.txt' } });
    const summary = runner.finish({ outcome: { status: 'hard-stop', reason: 'stuck', exit_code: 4 }, sections: { editor: { status: 'hard-stop' } } });
    const file = summary.reports.metrics as string;
    const written = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({ status: 'failed', result: { status: 'hard-stop', reason: 'stuck', exit_code: 4 }, editor: { status: 'hard-stop' } });
    const inode = fs.statSync(file).ino;
    expect(runner.finish({ outcome: { status: 'success', reason: 'other', exit_code: 0 } })).toBe(summary);
    // An atomic write replaces the file (a new inode): the same inode means nothing wrote it again.
    expect(fs.statSync(file).ino).toBe(inode);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(written);
  });

  it("a run finished without a closing (exec, MCP) writes the runner's metrics alone", async () => {
    const { ws, transactions } = openWorkspace(root);
    const runner = ToolRunner.start({ ws, config: defaultConfig(), transactions });
    const summary = runner.finish();
    const written = JSON.parse(fs.readFileSync(summary.reports.metrics as string, 'utf8')) as Record<string, unknown>;
    expect(written.status).toBe('finished');
    expect(written).not.toHaveProperty('result');
  });
});
