/**
 * One output rule (tools/output.ts), used by every place output is cut: a
 * write's diff, a dry run's preview, an MCP result and a read_file page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { pageOf } from '../../src/mcp/paging.js';
import { textResult } from '../../src/mcp/results.js';
import { dryRunOf } from '../../src/tools/dry-run.js';
import { editFileTool } from '../../src/tools/edit-file.js';
import { cutMarker, cutOutput, OUTPUT_LIMITS } from '../../src/tools/output.js';
import { ToolRunner } from '../../src/tools/runner.js';
import { openWorkspace } from '../../src/workspace/open.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-output-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('cutOutput', () => {
  it('keeps a text that fits, and otherwise its first `limit` characters and the marker', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 0, max: 200 }), (text, limit) => {
        const out = cutOutput(text, 'diff', limit);
        if (text.length <= limit) return out === text;
        return out === `${text.slice(0, limit)}\n${cutMarker('diff', limit)}` && out.length === limit + 1 + cutMarker('diff', limit).length;
      }),
    );
  });

  it('a page and a diff, with their marker, always fit in one result', () => {
    expect(OUTPUT_LIMITS.page + cutMarker('page').length + 1).toBeLessThanOrEqual(OUTPUT_LIMITS.result);
    expect(OUTPUT_LIMITS.diff + cutMarker('diff').length + 1).toBeLessThanOrEqual(OUTPUT_LIMITS.result);
  });
});

describe('every place output is cut uses the rule', () => {
  // Every line changes, so the diff (~70k characters) is over three times the diff limit; 500 lines keep the
  // diff itself cheap (its cost grows with lines times changed lines).
  const bigFile = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(60)}`).join('\n');

  it("a write's diff and a dry run's preview are cut at the diff limit, with the diff marker", async () => {
    fs.writeFileSync(path.join(root, 'a.txt'), `${bigFile}\n`);
    const { ws, transactions } = openWorkspace(root);
    const config = { ...defaultConfig(), constraints: { ...defaultConfig().constraints, allowed_tools: [], max_lines_changed: 100_000 } };
    const runner = ToolRunner.start({ ws, config, transactions, tools: [editFileTool, dryRunOf(editFileTool)] });
    const args = { path: 'a.txt', mode: 'overwrite', content: `${bigFile.replaceAll('x', 'y')}\n` };
    const preview = await runner.call({ tool: 'edit_file_dry_run', args });
    expect(preview.ok).toBe(true);
    expect(preview.output).toContain(cutMarker('diff'));
    const write = await runner.call({ tool: 'edit_file', args });
    expect(write.ok).toBe(true);
    expect(write.output).toContain(cutMarker('diff'));
    expect(write.output.length).toBeLessThan(OUTPUT_LIMITS.diff + 2_000);
  });

  it('an MCP result is cut at the result limit', () => {
    const text = 'z'.repeat(OUTPUT_LIMITS.result + 10);
    expect(textResult(text, undefined, false).content[0]?.text).toBe(cutOutput(text, 'result'));
  });

  it('a read_file page is cut at the page limit by default', () => {
    const content = Array.from({ length: 5000 }, () => 'p'.repeat(30)).join('\n');
    const page = pageOf(content, { path: 'big.txt', hash: 'h', total_lines: 5000, start_line: 1, end_line: 5000, truncated: false, content }, false);
    expect(page.text.length).toBeLessThanOrEqual(OUTPUT_LIMITS.page + 500);
    expect(page.text).toContain(`cut at ${OUTPUT_LIMITS.page} characters`);
  });
});
