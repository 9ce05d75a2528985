import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lines, read, runWithServer } from './helpers/project.js';
import { hashTree } from '../../src/agent/hash-tree.js';
import '../wasm-baseline.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/**
 * A small JavaScript project whose build is a real check: it loads the module
 * and fails unless greeting() still returns a string and count() a number.
 * (test/agent/controlled.test.ts covers real tsc and CMake builds; this keeps
 * the loop tests fast.)
 */
function jsProject(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-agent-ctl-')));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src/greeting.mjs'), 'export function greeting(name) {\n  return `Hello, ${name}!`;\n}\n\nexport function count() {\n  return 1;\n}\n');
  fs.writeFileSync(path.join(dir, 'src/main.mjs'), "import { greeting } from './greeting.mjs';\nconsole.log(greeting('editwarden'));\n");
  fs.writeFileSync(
    path.join(dir, 'check.mjs'),
    "const m = await import('./src/greeting.mjs');\nif (typeof m.greeting('x') !== 'string' || typeof m.count() !== 'number') { console.error('src/greeting.mjs:2: error: greeting must return a string'); process.exit(1); }\n",
  );
  roots.push(dir);
  return dir;
}

const build = `${JSON.stringify(process.execPath)} check.mjs`;

for (const protocol of ['openai', 'anthropic'] as const) {
  describe(`--mode controlled driven by a model (${protocol})`, () => {
    it('edit → build fails → rollback → stop: exit 3, the file byte-identical, the model offered no further turn', async () => {
      const root = jsProject();
      const before = hashTree(root, ['.editwarden', 'docs']);
      const r = await runWithServer(
        root,
        {
          turns: [
            {
              text: 'Returning the length instead.',
              tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return `Hello, ${name}!`;', new_text: 'return name.length;' } }],
            },
            { text: 'this turn must never be requested' },
          ],
        },
        { protocol, session: { mode: 'controlled', build: { command: build } } },
      );
      expect(r.outcome.status).toBe('controlled');
      expect(r.outcome.exitCode).toBe(3);
      expect(r.outcome.controlled?.message).toBe('FAILURE: Compile failed. Workspace rolled back.');
      expect(r.outcome.controlled?.rollback_check?.exact).toBe(true);
      expect(hashTree(root, ['.editwarden', 'docs'])).toEqual(before);
      // One model request: after the edit and its build the model gets no further turn.
      expect(r.server.requests).toHaveLength(1);
      // Only edit_file was offered, with the controlled prompt.
      const body = r.server.requests[0]?.body as { tools: Array<{ name?: string; function?: { name: string } }> };
      expect(body.tools.map((t) => t.name ?? t.function?.name)).toEqual(['edit_file']);
      expect(JSON.stringify(body)).toContain('exactly ONE change to ONE file');
      // The session's telemetry report, and the build log in the same run folder.
      expect(read(root, 'docs/telemetry/controlled_edit_report.md')).toContain('**Compilation Status:** FAILED');
      expect(fs.readdirSync(r.runDir as string)).toEqual(expect.arrayContaining(['transcript.jsonl', 'metrics.json', 'calls.jsonl']));
      const metrics = JSON.parse(fs.readFileSync(r.metricsFile as string, 'utf8'));
      expect(metrics.agent.controlled).toMatchObject({ tool_exit_code: 2, rolled_back: true });
      expect(lines(r.transcriptFile).at(-1)).toMatchObject({ type: 'end', status: 'controlled', exit_code: 3 });
    });
  });
}

describe('--mode controlled, the other outcomes', () => {
  it('a good edit builds: exit 0, kept, no further turn', async () => {
    const root = jsProject();
    const r = await runWithServer(
      root,
      { turns: [{ tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return 1;', new_text: 'return 2;' } }] }, { text: 'never' }] },
      { session: { mode: 'controlled', build: { command: build } } },
    );
    expect(r.outcome.exitCode).toBe(0);
    expect(r.outcome.controlled?.message).toBe('SUCCESS: Code modified and build passed.');
    expect(read(root, 'src/greeting.mjs')).toContain('return 2;');
    expect(r.server.requests).toHaveLength(1);
  });

  it('a refused edit (old_text not found) writes nothing, runs no build, and ends the session (the design: stop regardless); a second call in the same reply is not run', async () => {
    const root = jsProject();
    const r = await runWithServer(
      root,
      {
        turns: [
          {
            tool_calls: [
              { name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return 7;', new_text: 'return 2;' } },
              { name: 'edit_file', arguments: { filename: 'src/main.mjs', old_text: 'editwarden', new_text: 'world' } },
            ],
          },
          { tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return 1;', new_text: 'return 2;' } }] },
        ],
      },
      { session: { mode: 'controlled', build: { command: build } } },
    );
    expect(r.outcome.exitCode).toBe(1);
    expect(r.server.requests).toHaveLength(1);
    expect(read(root, 'src/greeting.mjs')).toContain('return 1;');
    expect(read(root, 'src/main.mjs')).toContain("greeting('editwarden')");
    const results = lines(r.transcriptFile).filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.status)).toEqual(['failed', 'skipped']);
    expect(String(results[0]?.output)).toMatch(/^Edit failed: /);
  });

  it('a denied path is a constraint violation before the session edits anything (exit 2)', async () => {
    const root = jsProject();
    const r = await runWithServer(
      root,
      { turns: [{ tool_calls: [{ name: 'edit_file', arguments: { filename: 'src/greeting.mjs', old_text: 'return 1;', new_text: 'return 2;' } }] }] },
      { session: { mode: 'controlled', build: { command: build } }, config: { constraints: { denied_patterns: ['src/**'] } } },
    );
    expect(r.outcome.exitCode).toBe(2);
    expect(read(root, 'src/greeting.mjs')).toContain('return 1;');
  });
});
