/**
 * edit_file safety features, phase 1 — the design's words, pasted: the "Searched for: <old_text>"
 * sentence shows a real anchor whole (a 300-character anchor is not cut) on every route, and
 * cuts only past 2,000 characters with the count; the `FILE EDITING GUIDELINES` block, heading,
 * "follow these rules strictly" and the four bullets, in every write-mode system prompt.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildEditorPrompt } from '../../src/agent/editor/prompt.js';
import { buildSystemPrompt } from '../../src/agent/prompts/index.js';
import { SEARCHED_FOR_MAX_CHARS, searchedFor } from '../../src/edit/errors.js';
import { bin, cleanup, jsonl, script, tempProject } from './helpers/bin.js';
import { call, connect } from '../mcp/helpers/server.js';
import { execCli } from '../tools/helpers/cli.js';

afterEach(cleanup);
afterAll(cleanup);

/** The design's block, copied from `src/prompts/write_prompt.rs` in the design document. */
const DESIGN_BLOCK = `FILE EDITING GUIDELINES

When modifying files, follow these rules strictly:

- create: ONLY for brand new files that don't exist yet
- edit: For targeted modifications. REQUIRES \`old_text\` (unique match)
- append: For safely adding content to the end of an existing file
- overwrite: DANGEROUS - replace entire file (explicit only)
`;

describe('the FILE EDITING GUIDELINES block, verbatim, in the write-mode system prompt', () => {
  it.each(['headless', 'interactive', 'controlled'] as const)('%s', (mode) => {
    expect(buildSystemPrompt({ mode, activeEdit: false, tools: ['read_file', 'edit_file'] })).toContain(DESIGN_BLOCK);
  });

  it.each([['headless'], ['controlled']])('sent to the model: a real %s run records it in its transcript', (mode) => {
    const root = tempProject({ 'a.txt': 'a\n' });
    const turns = mode === 'controlled' ? [{ tool_calls: [{ name: 'edit_file', arguments: { filename: 'a.txt', old_text: 'a', new_text: 'b' } }] }] : [{ tool_calls: [{ name: 'task_completion', arguments: { summary: 'nothing to do' } }] }];
    const r = bin(['run', '--mode', mode as string, '--task', 'x', '--model', script(root, turns), '--root', root, '--build', 'true', '--json']);
    const start = jsonl(JSON.parse(r.stdout).transcript)[0] as { type: string; system: string };
    expect(start.type).toBe('start');
    expect(start.system).toContain(DESIGN_BLOCK);
  });

  it('the Editor', () => {
    const environment = { has_test_suite: true } as Parameters<typeof buildEditorPrompt>[0]['environment'];
    expect(buildEditorPrompt({ dryRun: false, activeEdit: false, tools: ['edit_file'], environment, layoutHint: null })).toContain(DESIGN_BLOCK);
  });
});

// A real anchor of 300 characters: a whole function the model remembered wrongly.
const ANCHOR = `function total(items) {\n${Array.from({ length: 9 }, (_, i) => `  const part${i} = items[${i}] * rate(${i}); // ${'x'.repeat(4)}`).join('\n')}\n}`.slice(0, 300);
const SENTENCE = `The specified old_text was not found in the file. Searched for: ${ANCHOR}. Hint: Use read_file to view current contents and find a unique anchor point.`;

describe('"Searched for: <old_text>" shows the anchor whole', () => {
  it('is 300 characters long (the anchor the test sends)', () => {
    expect(ANCHOR.length).toBe(300);
  });

  it('CLI: editwarden edit', () => {
    const root = tempProject({ 'a.js': 'const a = 1;\n', 'old.txt': ANCHOR });
    const r = bin(['edit', 'a.js', '--old-file', path.join(root, 'old.txt'), '--new', 'x', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).results[0].error.message.startsWith(SENTENCE)).toBe(true);
  });

  it('tool runner: editwarden exec (the agent tool)', () => {
    const root = tempProject({ 'a.js': 'const a = 1;\n' });
    const r = execCli(root, `${JSON.stringify({ tool: 'edit_file', args: { path: 'a.js', old_text: ANCHOR, new_text: 'x' } })}\n`, ['--json']);
    expect(r.stdout).toContain(JSON.stringify(SENTENCE).slice(1, -1));
  });

  it('MCP: edit_file', async () => {
    const root = tempProject({ 'a.js': 'const a = 1;\n' });
    const server = await connect(['--root', root]);
    try {
      const r = await call(server.client, 'edit_file', { path: 'a.js', old_text: ANCHOR, new_text: 'x' });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(SENTENCE);
    } finally {
      await server.close();
    }
    expect(fs.readFileSync(path.join(root, 'a.js'), 'utf8')).toBe('const a = 1;\n');
  });

  it('whole up to 2,000 characters; beyond, cut there with the count of what was left out', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 2600 }), (text) => {
        const shown = searchedFor(text);
        if (text.length <= SEARCHED_FOR_MAX_CHARS) return shown === text;
        const m = /…\[(\d+) more chars\]$/.exec(shown);
        if (!m) return false;
        const kept = shown.slice(0, m.index);
        return text.startsWith(kept) && kept.length >= SEARCHED_FOR_MAX_CHARS - 1 && kept.length + Number(m[1]) === text.length && !/[\uD800-\uDBFF]$/.test(kept);
      }),
    );
    expect(searchedFor('a'.repeat(2001))).toBe(`${'a'.repeat(2000)}…[1 more chars]`);
  });
});
