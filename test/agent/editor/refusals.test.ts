import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEditor } from '../../../src/agent/editor/editor.js';
import { agentPath, writeRecord } from '../../../src/agent/editor/records.js';
import { loadConfig } from '../../../src/config/load.js';
import { openWorkspace } from '../../../src/workspace/open.js';
import { cleanup, complete, GREETING_PROJECT, lastToolResult, makeProject, runEditorWithServer } from './helpers.js';

afterEach(cleanup);

const ARTIFACT = '.editwarden/runs/20260101T000000Z-abcdef/verify/1/result.json';

/** Every write tool aimed at the artifact folder and outside the root, one call per turn. */
function attackTurns() {
  return [
    { tool_calls: [{ name: 'write_file', arguments: { path: ARTIFACT, content: '{"passed": true}\n' } }] },
    { tool_calls: [{ name: 'write_file', arguments: { path: '../outside.txt', content: 'x\n' } }] },
    { tool_calls: [{ name: 'edit_file', arguments: { path: 'agent/../.editwarden/evil.txt', mode: 'create', new_text: 'x\n' } }] },
    { tool_calls: [{ name: 'apply_patch', arguments: { patch: `*** Begin Patch\n*** Add File: ${ARTIFACT}\n+{"passed": true}\n*** End Patch\n` } }] },
    { tool_calls: [{ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: ../../escape.txt\n+x\n*** End Patch\n' } }] },
    { tool_calls: [{ name: 'read_file', arguments: { path: '.editwarden/verify/baseline.json' } }] },
    { tool_calls: [{ name: 'scout_codebase', arguments: { query: 'baseline', paths: ['.editwarden/verify/baseline.json', '../../etc/passwd'] } }] },
    { tool_calls: [{ name: 'scout_environment', arguments: { run_id: '../../../etc' } }] },
    complete('tried', 'blocked'),
  ];
}

function expectRefusals(root: string, server: Parameters<typeof lastToolResult>[0]): void {
  expect(lastToolResult(server, 1)).toContain('E_DENIED_PATH');
  expect(lastToolResult(server, 2)).toContain('E_OUTSIDE_ROOT');
  expect(lastToolResult(server, 3)).toContain('E_DENIED_PATH');
  expect(lastToolResult(server, 4)).toContain('E_DENIED_PATH');
  expect(lastToolResult(server, 5)).toContain('E_OUTSIDE_ROOT');
  expect(lastToolResult(server, 6)).toContain('E_DENIED_PATH');
  expect(lastToolResult(server, 7)).not.toContain('baseline.json');
  expect(lastToolResult(server, 8)).toContain('is not a run id');
  expect(fs.existsSync(path.join(root, ARTIFACT))).toBe(false);
  expect(fs.existsSync(path.join(root, '.editwarden/evil.txt'))).toBe(false);
  expect(fs.existsSync(path.join(path.dirname(root), 'outside.txt'))).toBe(false);
}

describe('writes to the artifact folder or outside the root are refused on every path through the Editor', () => {
  it('the file tools (edit_file, write_file, apply_patch), reads and scouts, in a normal session', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(root, { turns: attackTurns() });
    expectRefusals(root, r.server);
  });

  it('the same calls in a dry run, against the overlay', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(root, { turns: attackTurns() }, { editor: { dryRun: true } });
    expectRefusals(root, r.server);
    expect(r.record.files_changed).toEqual([]);
  });

  it('active edit directives in the model text', async () => {
    const root = makeProject(GREETING_PROJECT);
    const directive = (file: string): string => `---BEGIN---\nEdit: ${file}\naction: replace\n---START---\nx\n---END---\n`;
    const r = await runEditorWithServer(root, { turns: [{ text: `${directive(ARTIFACT)}${directive('../outside.txt')}` }, complete('tried', 'blocked')] }, { editor: { activeEdit: true } });
    const body = r.server.requests[1]?.body as { messages: Array<{ role: string; content: string }> };
    const report = body.messages[body.messages.length - 1]?.content ?? '';
    expect(report).toContain('E_DENIED_PATH');
    expect(report).toContain('E_OUTSIDE_ROOT');
    expect(fs.existsSync(path.join(root, ARTIFACT))).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(root), 'outside.txt'))).toBe(false);
  });

  it('apply-proposal: a proposal naming the artifact folder or a path outside writes nothing at all (exit 1)', async () => {
    const root = makeProject(GREETING_PROJECT);
    const good = "diff --git a/src/greeting.js b/src/greeting.js\n--- a/src/greeting.js\n+++ b/src/greeting.js\n@@ -1,3 +1,3 @@\n export function greeting(name) {\n-  return 'Hello, ' + name + '!';\n+  return 'Hi, ' + name + '!';\n }\n";
    for (const [bad, code] of [
      [`diff --git a/${ARTIFACT} b/${ARTIFACT}\nnew file mode 100644\n--- /dev/null\n+++ b/${ARTIFACT}\n@@ -0,0 +1 @@\n+{"passed": true}\n`, 'E_DENIED_PATH'],
      ['--- /dev/null\n+++ ../outside.txt\n@@ -0,0 +1 @@\n+x\n', 'E_OUTSIDE_ROOT'],
    ] as const) {
      const opened = openWorkspace(root);
      const r = await runEditor({ project: { ws: opened.ws, transactions: opened.transactions, config: loadConfig(root) }, task: 'Apply.', proposal: { text: `${good}${bad}`, file: 'p.diff' } });
      expect(r.status).toBe('failed');
      expect(r.exitCode).toBe(1);
      expect(r.error?.code).toBe(code);
      expect(fs.readFileSync(path.join(root, 'src/greeting.js'), 'utf8')).toContain('Hello');
      expect(fs.existsSync(path.join(root, ARTIFACT))).toBe(false);
      expect(fs.existsSync(path.join(path.dirname(root), 'outside.txt'))).toBe(false);
      expect(r.record.verifications).toEqual([]);
    }
  });

  it('the Editor records: only plain names directly inside agent/', () => {
    const root = makeProject({ 'a.txt': 'a\n' });
    const ws = openWorkspace(root).ws;
    expect(agentPath(ws, 'context_001.md')).toBe('agent/context_001.md');
    expect(() => agentPath(ws, '../.editwarden/runs/x.md')).toThrow(expect.objectContaining({ code: 'E_DENIED_PATH' }));
    expect(() => agentPath(ws, '../../outside.md')).toThrow(expect.objectContaining({ code: 'E_OUTSIDE_ROOT' }));
    expect(() => agentPath(ws, 'sub/x.md')).toThrow(expect.objectContaining({ code: 'E_DENIED_PATH' }));
    expect(() => writeRecord({ kind: 'run-folder', runDir: path.join(root, '.editwarden/runs/r'), root }, '../../x.md', 'x')).toThrow(expect.objectContaining({ code: 'E_DENIED_PATH' }));
    // agent/ itself swapped for a symlink into the artifact folder: still refused.
    fs.mkdirSync(path.join(root, '.editwarden/runs'), { recursive: true });
    fs.symlinkSync(path.join(root, '.editwarden/runs'), path.join(root, 'agent'));
    expect(() => writeRecord({ kind: 'project', ws }, 'context_001.md', 'x')).toThrow(expect.objectContaining({ code: 'E_DENIED_PATH' }));
    expect(fs.readdirSync(path.join(root, '.editwarden/runs'))).toEqual([]);
  });
});
