/**
 * Controlled Edit Mode v1, as the design says it, through the real binary: the loop stops after
 * the edit attempt whether it succeeded or failed; the design's tool outputs are the first line
 * the model receives; the report follows the design's template.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanup, ensureBuilt, jsonl, script, tempProject } from './helpers/bin.js';
import { defaultConfig } from '../../src/config/config.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { ControlledEditSession, MESSAGES } from '../../src/agent/controlled.js';

beforeAll(ensureBuilt);
afterEach(cleanup);

const GREETING = 'export function greeting() {\n  return 1;\n}\n';
const CHECK = "const t = require('fs').readFileSync('src/greeting.mjs', 'utf8');\nif (t.includes('return 3;')) { console.error('src/greeting.mjs:2:10: error: three is not allowed'); process.exit(1); }\n";
const BUILD = 'node --check src/greeting.mjs && node check.cjs';

function controlled(turns: unknown[]) {
  const root = tempProject({ 'src/greeting.mjs': GREETING, 'check.cjs': CHECK });
  const r = bin(['run', '--mode', 'controlled', '--task', 'Change the greeting.', '--model', script(root, turns), '--root', root, '--build', BUILD, '--json']);
  // biome-ignore lint/suspicious/noExplicitAny: the --json report is read field by field, and each expect below checks the field it reads.
  const out = JSON.parse(r.stdout) as Record<string, any>;
  const results = jsonl(out.transcript).filter((e) => e.type === 'tool_result');
  const report = fs.readFileSync(path.join(root, 'docs/telemetry/controlled_edit_report.md'), 'utf8');
  return { root, r, out, results, report, file: fs.readFileSync(path.join(root, 'src/greeting.mjs'), 'utf8') };
}

const secondTurn = { tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return 1;', new_text: 'return 2;' } }] };

describe('the loop stops after the edit attempt, regardless of whether it succeeded or failed', () => {
  it('a failed replacement ends the session: no second turn, no second edit, has_edited = true, build_success = false, the path kept, the report written', () => {
    const c = controlled([{ tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return 7;', new_text: 'return 2;' } }] }, secondTurn]);
    expect(c.r.code).toBe(1);
    expect(c.out.turns).toBe(1);
    expect(c.file).toBe(GREETING);
    expect(c.results).toHaveLength(1);
    expect(String(c.results[0]?.output).split('\n')[0]).toMatch(/^Edit failed: The specified old_text was not found in the file\. Searched for: return 7;\. Hint: Use read_file to view current contents and find a unique anchor point\./);
    expect(String(c.results[0]?.output).split('\n')[1]).toBe('tool exit code: 1');
    expect(c.out.controlled.state).toMatchObject({ has_edited: true, build_success: false, edit_file_path: 'src/greeting.mjs' });
    // The checkpoint came before the attempt: the refused replacement still names it.
    expect(c.out.controlled.state.edit_checkpoint_id).toMatch(/\S/);
    expect(c.report).toContain(`- **Checkpoint ID:** \`${c.out.controlled.state.edit_checkpoint_id}\`\n`);
    expect(c.report).toContain('- **Edit Status:** FAILURE');
    expect(c.report).toContain('- **Target File:** `src/greeting.mjs`');
  });

  it('invalid JSON: `JSON parsing error: …` first, the report written, the session over', () => {
    const c = controlled([{ tool_calls: [{ name: 'edit_file', arguments: '{"filename": "src/greeting.mjs", "old_text": ' }] }, secondTurn]);
    expect(c.r.code).toBe(1);
    expect(c.out.turns).toBe(1);
    expect(String(c.results[0]?.output)).toMatch(/^JSON parsing error: .+\ntool exit code: 1\n/);
    expect(c.report.startsWith('# Controlled Edit Mode v1: Run Report\n')).toBe(true);
    expect(c.file).toBe(GREETING);
  });

  it("missing fields: `Error: Missing required JSON fields ('filename', 'old_text')`", () => {
    const c = controlled([{ tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', new_text: 'return 2;' } }] }, secondTurn]);
    expect(c.r.code).toBe(1);
    expect(c.out.turns).toBe(1);
    expect(String(c.results[0]?.output).split('\n')[0]).toBe("Error: Missing required JSON fields ('filename', 'old_text')");
    expect(c.file).toBe(GREETING);
  });

  it('a build failure: `FAILURE: Compile failed. Workspace rolled back.` (tool exit 2, process exit 3)', () => {
    const c = controlled([{ tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return 1;', new_text: 'return 3;' } }] }]);
    expect(c.r.code).toBe(3);
    expect(String(c.results[0]?.output).split('\n').slice(0, 2)).toEqual(['FAILURE: Compile failed. Workspace rolled back.', 'tool exit code: 2']);
    expect(c.file).toBe(GREETING);
    expect(c.report).toContain('- **Compilation Status:** FAILED\n');
    expect(c.report).toContain('- **Automatic Rollback Triggered:** YES\n');
    expect(c.report).toMatch(/## Compilation Diagnostic Output\n\n```text\n[^`]*error: three is not allowed/);
  });
});

describe("the design's report template, exactly", () => {
  it('success: headings, bold labels, the diff block and the compilation output in the design order, extras after', () => {
    const c = controlled([secondTurn]);
    expect(c.r.code).toBe(0);
    expect(String(c.results[0]?.output).split('\n')[0]).toBe('SUCCESS: Code modified and build passed.');
    const lines = c.report.split('\n');
    expect(lines[0]).toBe('# Controlled Edit Mode v1: Run Report');
    const labels = lines
      .filter((l) => l.startsWith('- **'))
      .slice(0, 6)
      .map((l) => l.replace(/:\*\* .*/, ':**'));
    expect(labels).toEqual(['- **Timestamp:**', '- **Target File:**', '- **Checkpoint ID:**', '- **Edit Status:**', '- **Compilation Status:**', '- **Automatic Rollback Triggered:**']);
    expect(c.report).toMatch(/- \*\*Timestamp:\*\* \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z\n/);
    expect(c.report).toMatch(/- \*\*Checkpoint ID:\*\* `[^`(]+`\n/);
    expect(c.report).toContain('- **Edit Status:** SUCCESS\n- **Compilation Status:** PASSED\n- **Automatic Rollback Triggered:** NO\n');
    // The template's block exactly: -[old_text] / +[new_text]; the git diff follows in Details.
    expect(c.report).toContain('## Modification Diff Detail\n\n```diff\n-return 1;\n+return 2;\n```\n\n## Compilation Diagnostic Output\n');
    expect(c.report.slice(c.report.indexOf('## Details'))).toMatch(/### Unified diff\n\n```diff\ndiff --git a\/src\/greeting.mjs[\s\S]*- {2}return 1;\n\+ {2}return 2;\n/);
    expect(c.report.indexOf('## Details')).toBeGreaterThan(c.report.indexOf('## Compilation Diagnostic Output'));
  });
});

describe('a second edit in the same session', () => {
  it('is answered `Error: An edit has already been performed in this session.` with tool exit 1', async () => {
    const root = tempProject({ 'src/greeting.mjs': GREETING, 'check.cjs': CHECK });
    const { ws } = openWorkspace(root);
    const session = new ControlledEditSession(ws, { config: defaultConfig(), buildCommand: BUILD, reportPath: false });
    const first = await session.editFile({ filename: 'src/greeting.mjs', old_text: 'return 9;', new_text: 'return 2;' });
    expect(first.tool_exit_code).toBe(1);
    const second = await session.editFile({ filename: 'src/greeting.mjs', old_text: 'return 1;', new_text: 'return 2;' });
    expect(second.message).toBe(MESSAGES.alreadyEdited);
    expect(second.message).toBe('Error: An edit has already been performed in this session.');
    expect(second.tool_exit_code).toBe(1);
    expect(fs.readFileSync(path.join(root, 'src/greeting.mjs'), 'utf8')).toBe(GREETING);
  });
});
