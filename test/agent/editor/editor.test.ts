import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, complete, firstUserMessage, GREETING_FILE, GREETING_PROJECT, hypothesis, lastToolResult, makeProject, read, runEditorWithServer, setGreeting, systemPrompt, VERIFY, verifyResults } from './helpers.js';

afterEach(cleanup);

describe('Editor through the scripted model server (real OpenAI-compatible client)', () => {
  it('succeeds first time: summary written, its run_id is the green verification', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(root, {
      turns: [
        { tool_calls: [{ name: 'scout_codebase', arguments: { query: 'greeting' } }] },
        setGreeting('Hi', [hypothesis('The test expects "Hi"; the function says "Hello".', 'Change the word in src/greeting.js.')]),
        VERIFY,
        complete('Changed the greeting word from Hello to Hi so the test passes.'),
      ],
    });
    expect(r.status).toBe('success');
    expect(r.exitCode).toBe(0);
    expect(read(root, GREETING_FILE)).toContain("'Hi, '");
    expect(r.record.verifications).toHaveLength(1);
    const green = r.record.green_run_id as string;
    expect(green).toBe(r.record.verifications[0]?.run_id);
    expect(verifyResults(root, green).every((s) => s.passed)).toBe(true);
    const summary = read(root, 'agent/summary.md');
    expect(summary).toContain(`\`${green}\``);
    expect(summary).toContain('## What changed');
    expect(summary).toContain('src/greeting.js');
    expect(summary).toContain('Change the word in src/greeting.js.');
    expect(summary).not.toMatch(/commit message|pull request/i);
    expect(r.summaryFile).toBe(path.join(root, 'agent/summary.md'));
    expect(fs.readFileSync(path.join(r.runDir, 'summary.md'), 'utf8')).toBe(summary);
    // The baseline ran before any edit and failed (the test wanted "Hi").
    expect(r.record.baseline_run_id).not.toBeNull();
    expect(verifyResults(root, r.record.baseline_run_id as string)[0]?.passed).toBe(false);
    expect(read(root, 'agent/context_001.md')).toContain('## Scout payloads (raw)');
    // The scout call was answered from the repository, recorded raw in the current snapshot.
    expect(lastToolResult(r.server, 1)).toContain('src/greeting.js');
    expect(read(root, 'agent/context_001.md')).toContain('query "greeting"');
  });
});

describe('the debug loop, fix forward', () => {
  it('fails twice then succeeds: nothing is reverted between attempts, and the counters reset on green', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(root, {
      turns: [setGreeting('Hey'), VERIFY, setGreeting('Yo'), VERIFY, setGreeting('Hi'), VERIFY, complete('Changed the greeting to Hi.')],
    });
    expect(r.status).toBe('success');
    const v = r.record.verifications;
    expect(v.map((x) => x.passed)).toEqual([false, false, true]);
    expect(v.map((x) => x.counters)).toEqual([
      { consecutive_failures: 1, total_verify_loops: 1 },
      { consecutive_failures: 2, total_verify_loops: 2 },
      { consecutive_failures: 0, total_verify_loops: 0 },
    ]);
    expect(r.record.counters).toEqual({ consecutive_failures: 0, total_verify_loops: 0 });
    // Fix forward: the second attempt was made on top of the first failed state (the file said "Hey" when it failed).
    expect(lastToolResult(r.server, 2)).toContain("+ 'Hey, Ada!'");
    expect(lastToolResult(r.server, 2)).toContain('Attempt 1: FAIL  → consecutive=1, total=1');
    expect(lastToolResult(r.server, 6)).toMatch(/^PASS — verification 3/);
    expect(lastToolResult(r.server, 6)).toContain('both counters are reset');
    // The summary names the failed runs and the green one; the net change is one line.
    const summary = read(root, 'agent/summary.md');
    expect(summary).toContain(`\`${v[2]?.run_id}\``);
    expect(summary).toContain(`\`${v[0]?.run_id}\``);
    expect(summary).toContain('`src/greeting.js` (+1 −1)');
  });

  it('task_completion verifies unverified changes first; on FAIL the session goes on, on PASS it ends', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(root, { turns: [setGreeting('Hey'), complete('First try.'), setGreeting('Hi'), complete('Changed the greeting to Hi.')] });
    expect(r.status).toBe('success');
    expect(r.record.verifications.map((x) => [x.trigger, x.passed])).toEqual([
      ['completion', false],
      ['completion', true],
    ]);
    expect(lastToolResult(r.server, 2)).toContain('Not done: the changes must verify green');
    expect(r.record.completion?.summary).toBe('Changed the greeting to Hi.');
  });

  it('REPLAN at 3, 6 and 9 writes context_002..004 with the scope unchanged; the hard stop at 12 wins and writes the stuck report', async () => {
    const root = makeProject(GREETING_PROJECT);
    const turns = [];
    for (let i = 1; i <= 12; i++) {
      turns.push(setGreeting(`Nope${i}`, [hypothesis(`guess ${i}: the word is wrong`, i % 3 === 1 ? `approach ${Math.ceil(i / 3)}` : undefined)]), VERIFY);
    }
    turns.push(complete('never reached'));
    // 24 turns of a growing conversation: more than the default token budget (usage is estimated from the requests).
    const r = await runEditorWithServer(root, { turns }, { config: { constraints: { max_tokens: 10_000_000 } } });
    expect(r.status).toBe('hard-stop');
    expect(r.exitCode).toBe(4);
    // The model got no turn after the hard stop.
    expect(r.server.requests).toHaveLength(24);
    const v = r.record.verifications;
    expect(v).toHaveLength(12);
    expect(v.map((x) => x.decision)).toEqual(['fix', 'fix', 'replan', 'fix', 'fix', 'replan', 'fix', 'fix', 'replan', 'fix', 'fix', 'hard-stop']);
    expect(v.map((x) => x.strategy)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
    expect(r.contexts).toEqual(['agent/context_001.md', 'agent/context_002.md', 'agent/context_003.md', 'agent/context_004.md']);
    const scope = (file: string): string => {
      const text = read(root, file);
      return text.slice(text.indexOf('## Scope'), text.indexOf('## Strategy'));
    };
    for (const f of r.contexts) expect(scope(f)).toBe(scope('agent/context_001.md'));
    expect(read(root, 'agent/context_002.md')).toContain('REPLAN (strategy 2)');
    expect(read(root, 'agent/context_002.md')).toContain(`Verification run ${v[2]?.run_id}`);
    expect(lastToolResult(r.server, 6)).toContain('REPLAN — 3 consecutive failed verifications. Strategy 2 starts now');
    expect(lastToolResult(r.server, 6)).toContain('agent/context_002.md');
    // The changes are kept (fix forward), and the stuck report names every failed run and every hypothesis.
    expect(read(root, GREETING_FILE)).toContain('Nope12');
    const report = read(root, 'agent/stuck_report.md');
    for (const x of v) expect(report).toContain(`\`${x.run_id}\``);
    for (let i = 1; i <= 12; i++) expect(report).toContain(`guess ${i}: the word is wrong`);
    expect(report).toContain('12 verification loops without a green one');
    expect(fs.readFileSync(path.join(r.runDir, 'stuck_report.md'), 'utf8')).toBe(report);
    expect(fs.existsSync(path.join(root, 'agent/summary.md'))).toBe(false);

    // --retry: the next session of the same task gets that report, and only that.
    const again = await runEditorWithServer(root, { turns: [setGreeting('Hi'), VERIFY, complete('Changed the greeting to Hi.')] }, { editor: { retry: true } });
    expect(again.status).toBe('success');
    expect(again.record.seeded_from).toBe(r.runId);
    const seeded = firstUserMessage(again.server);
    expect(seeded).toContain('The previous attempt at this task got stuck');
    expect(seeded).toContain(report.trim());
    expect(seeded).not.toContain('Nope');
    // No pointer to the previous session's history: Scout A does not rank its context snapshots as code.
    expect(seeded.replace(report.trim(), '')).not.toMatch(/agent\/context_00[1-4]\.md/);
    // Its contexts are numbered after the first session's.
    expect(again.contexts[0]).toBe('agent/context_005.md');
  });

  it('--retry of a task that never got stuck is refused before anything runs', async () => {
    const root = makeProject(GREETING_PROJECT);
    await expect(runEditorWithServer(root, { turns: [] }, { editor: { retry: true } })).rejects.toMatchObject({ code: 'E_NO_FILE' });
    expect(fs.existsSync(path.join(root, '.editwarden', 'runs'))).toBe(false);
  });

  it('status "blocked" ends the session with a stuck report (exit 4)', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(root, { turns: [complete('The test file cannot be read.', 'blocked')] });
    expect(r.status).toBe('hard-stop');
    expect(r.exitCode).toBe(4);
    expect(read(root, 'agent/stuck_report.md')).toContain('Blocked: The test file cannot be read.');
  });

  it('cancel: partial changes kept, no summary and no stuck report (exit 130)', async () => {
    const root = makeProject(GREETING_PROJECT);
    const controller = new AbortController();
    const r = await runEditorWithServer(
      root,
      { turns: [setGreeting('Hey'), VERIFY, setGreeting('Hi'), VERIFY, complete('x')] },
      {
        editor: {
          run: { signal: controller.signal },
          listeners: {
            onEvent: (e) => {
              if (e.type === 'verify-end') controller.abort();
            },
          },
        },
      },
    );
    expect(r.status).toBe('cancelled');
    expect(r.exitCode).toBe(130);
    expect(read(root, GREETING_FILE)).toContain("'Hey, '");
    expect(fs.existsSync(path.join(root, 'agent/summary.md'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'agent/stuck_report.md'))).toBe(false);
    expect(r.summaryFile).toBeUndefined();
    expect(r.stuckReportFile).toBeUndefined();
  });

  it('a constraint violation ends the session with exit 2', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(
      root,
      {
        turns: [
          {
            tool_calls: [
              { name: 'write_file', arguments: { path: 'src/one.js', content: 'x\n' } },
              { name: 'write_file', arguments: { path: 'src/two.js', content: 'y\n' } },
            ],
          },
        ],
      },
      { config: { constraints: { max_files: 1 } } },
    );
    expect(r.status).toBe('violation');
    expect(r.exitCode).toBe(2);
    expect(fs.existsSync(path.join(root, 'src/two.js'))).toBe(false);
  });
});

describe('test generation when the repository has no test suite', () => {
  it('tells the Editor to add tests in the detected framework, and the Verifier runs them', async () => {
    const root = makeProject({
      'package.json': '{\n  "name": "calc",\n  "type": "module"\n}\n',
      'src/add.js': 'export function add(a, b) {\n  return a + b;\n}\n',
    });
    const r = await runEditorWithServer(
      root,
      {
        turns: [
          {
            tool_calls: [
              {
                name: 'write_file',
                arguments: { path: 'src/add.test.js', content: "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\n\ntest('adds', () => assert.equal(add(2, 3), 5));\n" },
              },
              { name: 'write_file', arguments: { path: 'package.json', content: '{\n  "name": "calc",\n  "type": "module",\n  "scripts": {\n    "test": "node --test"\n  }\n}\n', overwrite: true } },
            ],
          },
          VERIFY,
          complete('Added a test for add().'),
        ],
      },
      { task: 'Add a test for add().' },
    );
    const system = systemPrompt(r.server);
    expect(system).toContain('This repository has no test suite. Add tests for what you change, written with node:test');
    expect(system).toContain('add a "test" script to package.json');
    expect(r.status).toBe('success');
    expect(r.record.verifications[0]?.lines).toContain('test `npm test` passed');
  });

  it('says nothing of the kind when a suite exists', async () => {
    const root = makeProject(GREETING_PROJECT);
    const r = await runEditorWithServer(root, { turns: [complete('x', 'blocked')] });
    expect(systemPrompt(r.server)).not.toContain('no test suite');
  });
});

describe('scouts.model', () => {
  it('summarises scout payloads for the Editor; the raw payload is still recorded and still sent', async () => {
    const { startScriptedServer } = await import('../../../src/agent/providers/scripted-server.js');
    const { createProvider } = await import('../../../src/agent/providers/spec.js');
    const scoutServer = await startScriptedServer(() => ({ text: 'greeting lives in src/greeting.js', usage: { input: 10, output: 5 } }));
    try {
      const root = makeProject(GREETING_PROJECT);
      const scoutProvider = createProvider('openai-compatible:scout', { baseUrl: scoutServer.openaiBaseUrl, env: {}, maxRetries: 0 });
      const r = await runEditorWithServer(root, { turns: [{ tool_calls: [{ name: 'scout_codebase', arguments: { query: 'greeting' } }] }, complete('x', 'blocked')] }, { editor: { scoutProvider } });
      const result = lastToolResult(r.server, 1);
      expect(result).toContain('Summary (scouts.model openai-compatible:scout):\ngreeting lives in src/greeting.js');
      expect(result).toContain('"path": "src/greeting.js"');
      expect(scoutServer.requests).toHaveLength(1);
      expect(read(root, 'agent/context_001.md')).not.toContain('greeting lives in');
      // Its tokens are charged to the run's budget.
      const metrics = JSON.parse(fs.readFileSync(path.join(r.runDir, 'metrics.json'), 'utf8')) as { constraints: { actual: { tokens_used: number } } };
      expect(metrics.constraints.actual.tokens_used).toBeGreaterThanOrEqual(15);
    } finally {
      await scoutServer.close();
    }
  });
});
