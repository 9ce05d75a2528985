import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lines, makeProject, read, runWithServer } from './helpers/project.js';
import type { ScriptRequest, ScriptedTurn } from '../../src/agent/providers/script.js';
import '../wasm-baseline.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});
function project(files: Record<string, string>): string {
  const root = makeProject(files);
  roots.push(root);
  return root;
}

const GREETING = 'export function greeting(name: string): string {\n  return `Hello, ${name}!`;\n}\n';

/** The last tool-result text the model was sent, whichever protocol carried it. */
function lastToolResult(req: ScriptRequest): string {
  const body = req.body as { messages: Array<{ role: string; content: unknown }> };
  const msgs = body.messages;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    if (!m) continue;
    if (m.role === 'tool' && typeof m.content === 'string') return m.content;
    if (m.role === 'user' && Array.isArray(m.content)) {
      const block = (m.content as Array<{ type: string; content?: string }>).find((b) => b.type === 'tool_result');
      if (block?.content) return block.content;
    }
  }
  return '';
}

for (const protocol of ['openai', 'anthropic'] as const) {
  describe(`agent loop over the ${protocol} protocol (real SDK client, scripted server)`, () => {
    it('completes a task with edits: read, edit, task_completion; transcript, metrics and run folder written', async () => {
      const root = project({ 'src/greeting.ts': GREETING });
      const r = await runWithServer(
        root,
        {
          turns: [
            { text: 'Let me read the file first.', tool_calls: [{ name: 'read_file', arguments: { path: 'src/greeting.ts' } }], usage: { input: 500, output: 40 } },
            {
              text: 'Now the edit.',
              tool_calls: [{ name: 'edit_file', arguments: { path: 'src/greeting.ts', old_text: 'return `Hello, ${name}!`;', new_text: 'return `Hi, ${name}!`;' } }],
              usage: { input: 700, output: 60 },
            },
            { tool_calls: [{ name: 'task_completion', arguments: { summary: 'Changed the greeting to Hi.' } }], usage: { input: 900, output: 20 } },
          ],
        },
        { protocol },
      );
      expect(r.outcome.status).toBe('completed');
      expect(r.outcome.exitCode).toBe(0);
      expect(read(root, 'src/greeting.ts')).toContain('return `Hi, ${name}!`;');
      expect(r.outcome.usage).toEqual({ input: 2100, output: 120, estimated: false });
      expect(r.outcome.completion).toEqual({ summary: 'Changed the greeting to Hi.', status: 'done' });
      expect(r.server.requests).toHaveLength(3);
      // The second request carried the read_file result back to the model.
      expect(lastToolResult({ protocol, index: 1, body: r.server.requests[1]?.body })).toContain('Hello, ${name}!');
      expect(lastToolResult({ protocol, index: 2, body: r.server.requests[2]?.body })).toContain('+  return `Hi, ${name}!`;');
      // Run folder: transcript (replayable assistant lines), metrics with the agent section, calls log.
      expect(r.runDir).toBe(path.join(root, '.editwarden/runs', r.runId));
      const transcript = lines(r.transcriptFile);
      expect(transcript.map((e) => e.type)).toEqual(['start', 'user', 'assistant', 'tool_result', 'assistant', 'tool_result', 'assistant', 'tool_result', 'end']);
      const metrics = JSON.parse(fs.readFileSync(path.join(r.runDir as string, 'metrics.json'), 'utf8'));
      expect(metrics.status).toBe('completed');
      expect(metrics.constraints.actual.tokens_used).toBe(2220);
      expect(metrics.constraints.actual.files_modified).toBe(1);
      expect(metrics.agent).toMatchObject({ status: 'completed', turns: 3, malformed_calls: 0, exit_code: 0 });
      expect(fs.existsSync(path.join(r.runDir as string, 'calls.jsonl'))).toBe(true);
    });

    it('a malformed tool call (bad JSON) goes back to the model as a fixable error, is counted, and the run recovers', async () => {
      const root = project({ 'notes.txt': 'alpha\n' });
      const r = await runWithServer(
        root,
        {
          turns: [
            { tool_calls: [{ name: 'edit_file', arguments: '{"path": "notes.txt", "old_text": "alpha", "new_text": "beta"' }] },
            { tool_calls: [{ name: 'no_such_tool', arguments: {} }] },
            { tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta', colour: 'red' } }] },
            { tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }] },
            { tool_calls: [{ name: 'task_completion', arguments: { summary: 'done' } }] },
          ],
        },
        { protocol },
      );
      expect(r.outcome.status).toBe('completed');
      expect(r.outcome.malformedCalls).toBe(3);
      expect(read(root, 'notes.txt')).toBe('beta\n');
      const sent = [1, 2, 3].map((i) => lastToolResult({ protocol, index: i, body: r.server.requests[i]?.body }));
      expect(sent[0]).toMatch(/E_MALFORMED_CALL: The edit_file call could not be run: the arguments are not valid JSON/);
      expect(sent[0]).toContain('hint:');
      expect(sent[1]).toContain('There is no tool named "no_such_tool"');
      expect(sent[2]).toContain('unknown field "colour"');
      const metrics = JSON.parse(fs.readFileSync(path.join(r.runDir as string, 'metrics.json'), 'utf8'));
      expect(metrics.agent.malformed_calls).toBe(3);
    });

    it('3 identical failing calls in a row stop the run (exit 4) with a clear reason; the model is not asked again', async () => {
      const root = project({ 'notes.txt': 'alpha\n' });
      const bad: ScriptedTurn = { tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'gamma', new_text: 'x' } }] };
      const r = await runWithServer(root, { turns: [bad, bad, bad, bad] }, { protocol });
      expect(r.outcome.status).toBe('stuck');
      expect(r.outcome.exitCode).toBe(4);
      expect(r.outcome.reason).toContain('3 times in a row');
      expect(r.server.requests).toHaveLength(3);
    });

    it('a constraint violation ends the run with exit 2, later calls are not run, the violation report is written', async () => {
      const root = project({ 'src/a.ts': 'export const a = 1;\n', 'secrets/key.txt': 'k\n' });
      const r = await runWithServer(
        root,
        {
          turns: [
            {
              tool_calls: [
                { name: 'edit_file', arguments: { path: 'secrets/key.txt', old_text: 'k', new_text: 'stolen' } },
                { name: 'edit_file', arguments: { path: 'src/a.ts', old_text: '1', new_text: '2' } },
              ],
            },
            { tool_calls: [{ name: 'task_completion', arguments: { summary: 'x' } }] },
          ],
        },
        { protocol, config: { constraints: { denied_patterns: ['secrets/**'] } } },
      );
      expect(r.outcome.status).toBe('violation');
      expect(r.outcome.exitCode).toBe(2);
      expect(r.outcome.violation?.type).toBe('Pattern');
      expect(read(root, 'secrets/key.txt')).toBe('k\n');
      expect(read(root, 'src/a.ts')).toBe('export const a = 1;\n');
      expect(r.server.requests).toHaveLength(1);
      expect(fs.existsSync(path.join(r.runDir as string, 'violation.md'))).toBe(true);
      const transcript = lines(r.transcriptFile);
      expect(transcript.filter((e) => e.type === 'tool_result').map((e) => e.status)).toEqual(['refused', 'skipped']);
    });

    it("the token budget is exceeded from reported usage: exit 2, the turn's calls are not run", async () => {
      const root = project({ 'notes.txt': 'alpha\n' });
      const r = await runWithServer(
        root,
        {
          turns: [
            { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], usage: { input: 600, output: 100 } },
            { tool_calls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }], usage: { input: 800, output: 100 } },
          ],
        },
        { protocol, config: { constraints: { max_tokens: 1000 } } },
      );
      expect(r.outcome.status).toBe('violation');
      expect(r.outcome.exitCode).toBe(2);
      expect(r.outcome.violation).toMatchObject({ type: 'TokenLimit', constraint: 'max_tokens', limit: 1000, actual: 1600 });
      expect(read(root, 'notes.txt')).toBe('alpha\n');
      const metrics = JSON.parse(fs.readFileSync(path.join(r.runDir as string, 'metrics.json'), 'utf8'));
      expect(metrics.constraints.actual.tokens_used).toBe(1600);
    });

    it('active edit: directives in the assistant text are applied through the runner, a malformed one reported, each reported back', async () => {
      const root = project({ 'src/greeting.ts': GREETING });
      const reply = [
        'I will add a farewell and a config file.',
        '---BEGIN---',
        'Edit: src/greeting.ts',
        'action: append',
        '---START---',
        'export function farewell(name: string): string {',
        '  return `Bye, ${name}!`;',
        '}',
        '---END---',
        '---BEGIN---',
        'Edit: src/broken.ts',
        'action: explode',
        '---START---',
        'x',
        '---END---',
        '---BEGIN---',
        'Edit: config/app.json',
        'action: replace',
        '---START---',
        '{ "greeting": "Hello" }',
        '---END---',
        '',
      ].join('\n');
      const r = await runWithServer(root, { turns: [{ text: reply }, { tool_calls: [{ name: 'task_completion', arguments: { summary: 'added' } }] }] }, { protocol, session: { activeEdit: true } });
      expect(r.outcome.status).toBe('completed');
      expect(read(root, 'src/greeting.ts')).toBe(`${GREETING}export function farewell(name: string): string {\n  return \`Bye, \${name}!\`;\n}\n`);
      expect(read(root, 'config/app.json')).toBe('{ "greeting": "Hello" }\n');
      expect(fs.existsSync(path.join(root, 'src/broken.ts'))).toBe(false);
      expect(r.outcome.activeEdits).toEqual({ applied: 2, failed: 1 });
      // Shown as they arrived: three directive events, in order, before the turn ended.
      const order = r.events.filter((e) => e.type === 'directive' || e.type === 'turn-end').map((e) => e.type);
      expect(order.slice(0, 4)).toEqual(['directive', 'directive', 'directive', 'turn-end']);
      // Reported back to the model in the next request.
      const second = JSON.stringify(r.server.requests[1]?.body);
      expect(second).toContain('Active edit results:');
      expect(second).toMatch(/#2 src\/broken.ts.*rejected/);
      // The system prompt carried the active edit instructions only because active edit was on.
      expect(JSON.stringify(r.server.requests[0]?.body)).toContain('Active edit directives');
    });

    it('without --active-edit the instructions are not sent and directives in text are not applied', async () => {
      const root = project({ 'a.txt': 'a\n' });
      const r = await runWithServer(root, { turns: [{ text: '---BEGIN---\nEdit: b.txt\naction: replace\n---START---\nb\n---END---\n' }, { tool_calls: [{ name: 'task_completion', arguments: { summary: 'x' } }] }] }, { protocol });
      expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
      const system = JSON.stringify(r.server.requests[0]?.body);
      expect(system).not.toContain('Active edit directives');
      expect(system).toContain('Editing files');
      expect(system).toContain('create\\" is only for files that do not exist');
    });
  });
}

describe('streaming', () => {
  it('text arrives in pieces while the turn streams (OpenAI SSE), and the same run without streaming gets it whole', async () => {
    const text = 'This reply is long enough to arrive in several streamed pieces of nine characters.';
    for (const stream of [true, false]) {
      const root = project({ 'a.txt': 'a\n' });
      const r = await runWithServer(root, { turns: [{ text, tool_calls: [{ name: 'task_completion', arguments: { summary: 's' } }] }] }, { stream });
      const deltas = r.events.filter((e) => e.type === 'text');
      if (stream) expect(deltas.length).toBeGreaterThan(5);
      else expect(deltas).toHaveLength(1);
      expect(deltas.map((e) => (e.type === 'text' ? e.delta : '')).join('')).toBe(text);
      expect(r.server.requests[0]?.stream).toBe(stream);
    }
  });
});

describe('headless details', () => {
  it('a model that keeps replying without tools is nudged once, then the run stops without completion (exit 1)', async () => {
    const root = project({ 'a.txt': 'a\n' });
    const r = await runWithServer(root, { turns: [{ text: 'I think it is fine.' }, { text: 'Really fine.' }, { text: 'never asked' }] });
    expect(r.outcome.status).toBe('no-completion');
    expect(r.outcome.exitCode).toBe(1);
    expect(r.server.requests).toHaveLength(2);
    expect(JSON.stringify(r.server.requests[1]?.body)).toContain('You replied without calling a tool');
  });

  it('headless runs are not offered ask_question; interactive tools called anyway are a ToolRestriction violation', async () => {
    const root = project({ 'a.txt': 'a\n' });
    const r = await runWithServer(root, { turns: [{ tool_calls: [{ name: 'ask_question', arguments: { question: 'ok?' } }] }] });
    const offered = (r.server.requests[0]?.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(offered).not.toContain('ask_question');
    expect(offered).toContain('edit_file');
    expect(r.outcome.status).toBe('violation');
    expect(r.outcome.violation?.type).toBe('ToolRestriction');
  });

  it('a provider error stops the run (exit 1) and still writes the transcript and metrics', async () => {
    const root = project({ 'a.txt': 'a\n' });
    const r = await runWithServer(root, { turns: [{ error: { status: 401, message: 'invalid x-api-key' } }] });
    expect(r.outcome.status).toBe('provider-error');
    expect(r.outcome.exitCode).toBe(1);
    expect(r.outcome.error?.message).toContain('HTTP 401');
    expect(lines(r.transcriptFile).at(-1)).toMatchObject({ type: 'end', status: 'provider-error' });
    expect(fs.existsSync(r.metricsFile as string)).toBe(true);
  });

  it('--max-turns stops a run that never finishes (exit 4)', async () => {
    const root = project({ 'a.txt': 'a\n' });
    const read = { tool_calls: [{ name: 'list_files', arguments: {} }] };
    const r = await runWithServer(root, { turns: [read, read, read, read] }, { session: { limits: { maxTurns: 2 } } });
    expect(r.outcome.status).toBe('turn-limit');
    expect(r.outcome.exitCode).toBe(4);
    expect(r.server.requests).toHaveLength(2);
  });
});
