import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashTree } from '../../../src/agent/hash-tree.js';
import { runEditor } from '../../../src/agent/editor/editor.js';
import { loadConfig } from '../../../src/config/load.js';
import { openWorkspace } from '../../../src/workspace/open.js';
import { cleanup, complete, GREETING_FILE, GREETING_PROJECT, lastToolResult, makeProject, read, runEditorWithServer, setGreeting, verifyResults } from './helpers.js';

afterEach(cleanup);

function runsOf(root: string): string[] {
  try {
    return fs.readdirSync(path.join(root, '.editwarden', 'runs'));
  } catch {
    return [];
  }
}

describe('dry run against an overlay', () => {
  it('reads, listings and searches see the proposed changes, the disk is untouched, nothing is verified; the proposal then applies and verifies', async () => {
    const root = makeProject(GREETING_PROJECT);
    const before = hashTree(root);
    const r = await runEditorWithServer(
      root,
      {
        turns: [
          setGreeting('Hi', [{ name: 'write_file', arguments: { path: 'src/farewell.js', content: "export const farewell = (name) => 'Bye, ' + name + '!';\n" } }]),
          { tool_calls: [{ name: 'read_file', arguments: { path: GREETING_FILE } }] },
          { tool_calls: [{ name: 'list_files', arguments: { path: 'src' } }] },
          { tool_calls: [{ name: 'search_files', arguments: { pattern: "'Hi, '" } }] },
          { tool_calls: [{ name: 'edit_file', arguments: { path: GREETING_FILE, old_text: "'Hi, '", new_text: "'Hi, ' " } }] },
          { tool_calls: [{ name: 'verify', arguments: {} }] },
          complete('Greeting says Hi; added farewell.'),
        ],
      },
      { editor: { dryRun: true } },
    );
    expect(r.status).toBe('proposal');
    expect(r.exitCode).toBe(0);
    // The disk: byte for byte as before (the run folder aside), no agent/ folder, no verification runs at all.
    expect(hashTree(root)).toEqual(before);
    expect(fs.existsSync(path.join(root, 'agent'))).toBe(false);
    expect(runsOf(root)).toEqual([r.runId]);
    expect(r.record.verifications).toEqual([]);
    expect(r.record.baseline_run_id).toBeNull();
    // The overlay's view.
    expect(lastToolResult(r.server, 2)).toContain("return 'Hi, ' + name + '!';");
    expect(lastToolResult(r.server, 3)).toContain('src/farewell.js');
    expect(lastToolResult(r.server, 4)).toContain("src/greeting.js:2:  return 'Hi, ' + name + '!';");
    // An edit on top of an earlier overlay edit works, and verify is not offered in a dry run.
    expect(lastToolResult(r.server, 5)).toContain("+  return 'Hi, '  + name + '!';");
    expect(lastToolResult(r.server, 6)).toContain('There is no tool named "verify"');
    // The contexts went to the run folder.
    expect(r.contexts).toEqual([`.editwarden/runs/${r.runId}/agent/context_001.md`]);
    // One git-style unified diff, saved as the proposal file.
    const proposal = fs.readFileSync(r.proposalFile as string, 'utf8');
    expect(r.proposalFile).toBe(path.join(r.runDir, 'proposal.diff'));
    expect(proposal).toContain('# editwarden proposal');
    expect(proposal).toContain('diff --git a/src/greeting.js b/src/greeting.js');
    expect(proposal).toContain('new file mode 100644');
    expect(proposal).toContain("+export const farewell = (name) => 'Bye, ' + name + '!';");
    expect(r.diff).toBeDefined();
    expect(proposal.endsWith(r.diff as string)).toBe(true);
    expect(r.record.files_changed.map((f) => [f.path, f.created])).toEqual([
      ['src/farewell.js', true],
      ['src/greeting.js', false],
    ]);

    // apply-proposal: writes it, then the full verification with the normal debug loop (green here: no model needed).
    const config = loadConfig(root);
    const opened = openWorkspace(root);
    const applied = await runEditor({ project: { ws: opened.ws, transactions: opened.transactions, config }, task: 'Apply the proposal.', proposal: { text: proposal, file: r.proposalFile as string } });
    expect(applied.status).toBe('success');
    expect(applied.exitCode).toBe(0);
    expect(read(root, GREETING_FILE)).toContain("return 'Hi, '  + name + '!';");
    expect(read(root, 'src/farewell.js')).toContain('Bye');
    const green = applied.record.green_run_id as string;
    expect(verifyResults(root, green).every((s) => s.passed)).toBe(true);
    expect(read(root, 'agent/summary.md')).toContain(`\`${green}\``);
    expect(read(root, 'agent/summary.md')).toContain('`src/farewell.js` (new file, +1 −0)');
  });

  it('apply-proposal whose verification fails keeps the changes (fix forward) and exits 3 without a model', async () => {
    const root = makeProject(GREETING_PROJECT);
    const dry = await runEditorWithServer(root, { turns: [setGreeting('Howdy'), complete('Howdy.')] }, { editor: { dryRun: true } });
    const opened = openWorkspace(root);
    const applied = await runEditor({ project: { ws: opened.ws, transactions: opened.transactions, config: loadConfig(root) }, task: 'Apply.', proposal: { text: fs.readFileSync(dry.proposalFile as string, 'utf8'), file: 'p.diff' } });
    expect(applied.status).toBe('verify-failed');
    expect(applied.exitCode).toBe(3);
    expect(read(root, GREETING_FILE)).toContain('Howdy');
    expect(applied.record.verifications).toHaveLength(1);
    expect(applied.record.verifications[0]?.counters).toEqual({ consecutive_failures: 1, total_verify_loops: 1 });
  });

  it('apply-proposal with a model: on FAIL the Editor takes over the debug loop with the failure in its first message', async () => {
    const root = makeProject(GREETING_PROJECT);
    const dry = await runEditorWithServer(root, { turns: [setGreeting('Howdy'), complete('Howdy.')] }, { editor: { dryRun: true } });
    const r = await runEditorWithServer(
      root,
      { turns: [setGreeting('Hi'), complete('Fixed the word to Hi.')] },
      {
        task: 'Apply the proposal.',
        editor: { proposal: { text: fs.readFileSync(dry.proposalFile as string, 'utf8'), file: 'p.diff' } },
      },
    );
    expect(r.status).toBe('success');
    const body = r.server.requests[0]?.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages.find((m) => m.role === 'user')?.content).toContain('The proposal was applied, and its verification failed');
    expect(r.record.verifications.map((v) => [v.trigger, v.passed])).toEqual([
      ['proposal', false],
      ['completion', true],
    ]);
  });
});
