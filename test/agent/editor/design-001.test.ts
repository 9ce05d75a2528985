/**
 * The Editor specification's words, pasted: the counters exactly as its
 * example scenario writes them (through the model's verify result, the
 * context snapshots, the stuck report and the CLI's live lines), and its
 * "Optional Scout re-query … Skip re-query" at REPLAN (the scouts are
 * re-queried only when the Editor asks), and "Cancel — Partial changes
 * preserved — no artifact created".
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptLines, afterVerification, initialCounters } from '../../../src/agent/editor/counters.js';
import { cleanup, complete, GREETING_FILE, GREETING_PROJECT, hypothesis, lastToolResult, makeProject, read, runEditorWithServer, setGreeting, VERIFY } from './helpers.js';

afterEach(cleanup);

/** The specification's "Example Scenario", verbatim. */
const DESIGN_EXAMPLE = `Attempt 1: FAIL  → consecutive=1, total=1
Attempt 2: FAIL  → consecutive=2, total=2
Attempt 3: FAIL  → consecutive=3, total=3 → REPLAN triggered
                   consecutive resets to 0
Attempt 4: FAIL  → consecutive=1, total=4
Attempt 5: FAIL  → consecutive=2, total=5
Attempt 6: FAIL  → consecutive=3, total=6 → REPLAN triggered
                   consecutive resets to 0
Attempt 7: FAIL  → consecutive=1, total=7
Attempt 8: FAIL  → consecutive=2, total=8
Attempt 9: FAIL  → consecutive=3, total=9 → REPLAN triggered
                   consecutive resets to 0
Attempt 10: FAIL → consecutive=1, total=10
Attempt 11: FAIL → consecutive=2, total=11
Attempt 12: FAIL → consecutive=3, total=12 → Hard stop (precedence over REPLAN)`;

/** The fenced block under a heading of a markdown document. */
function blockUnder(markdown: string, heading: string): string {
  const at = markdown.indexOf(`${heading}\n`);
  expect(at, `${heading} in\n${markdown}`).toBeGreaterThanOrEqual(0);
  const open = markdown.indexOf('```\n', at);
  return markdown.slice(open + 4, markdown.indexOf('\n```', open + 4));
}

describe('the counters, as the example scenario writes them', () => {
  it('twelve failures render as the example, line for line (the pure rule)', () => {
    let counters = initialCounters();
    const lines: string[] = [];
    for (let n = 1; n <= 12; n++) {
      const step = afterVerification(counters, false);
      counters = step.counters;
      lines.push(...attemptLines(n, false, step.reached, step.decision.action));
    }
    expect(lines.join('\n')).toBe(DESIGN_EXAMPLE);
  });

  it('a PASS is an attempt too, and full green resets both', () => {
    const step = afterVerification({ consecutive_failures: 2, total_verify_loops: 2 }, true);
    expect(attemptLines(3, true, step.reached, step.decision.action)).toEqual(['Attempt 3: PASS  → consecutive=0, total=3 → full green', '                   both counters reset to 0']);
    expect(step.counters).toEqual(initialCounters());
  });

  it('a 12-failure session: the model reads "consecutive=3, total=3 → REPLAN triggered" then the reset; the stuck report holds the example verbatim; the Editor re-queries only the scout it asks for', async () => {
    const root = makeProject(GREETING_PROJECT);
    const turns = [];
    for (let i = 1; i <= 12; i++) {
      const extra = [hypothesis(`guess ${i}`)];
      // After the first REPLAN the Editor asks Scout A again; after the second and third it skips the re-query.
      if (i === 4) extra.push({ name: 'scout_codebase', arguments: { query: 'greeting word after replan' } });
      turns.push(setGreeting(`Nope${i}`, extra), VERIFY);
    }
    turns.push(complete('never reached'));
    const r = await runEditorWithServer(root, { turns }, { config: { constraints: { max_tokens: 10_000_000 } } });
    expect(r.status).toBe('hard-stop');

    // Request 6 answers the third verify: the counters as reached, then the reset.
    const third = lastToolResult(r.server, 6);
    expect(third).toContain('Attempt 3: FAIL  → consecutive=3, total=3 → REPLAN triggered\n                   consecutive resets to 0');
    expect(third).not.toContain('consecutive_failures: 0 of 3');
    expect(r.record.verifications[2]?.reached).toEqual({ consecutive_failures: 3, total_verify_loops: 3 });
    expect(r.record.verifications[2]?.counters).toEqual({ consecutive_failures: 0, total_verify_loops: 3 });

    // The stuck report's debug loop is the specification's example, word for word.
    expect(blockUnder(read(root, 'agent/stuck_report.md'), '## Debug loop')).toBe(DESIGN_EXAMPLE);
    // Each REPLAN snapshot shows the loop so far in the same words.
    expect(blockUnder(read(root, 'agent/context_002.md'), '## Debug loop')).toBe(DESIGN_EXAMPLE.split('\n').slice(0, 4).join('\n'));

    // "Optional Scout re-query": no scout ran at a REPLAN by itself. context_002 holds only what the Editor asked
    // after it (Scout A), context_003 and context_004 none; the REPLAN message gives the design's three choices.
    const scoutEvents = r.events.filter((e) => e.type === 'scout').map((e) => (e.type === 'scout' ? `${e.scout}: ${e.request}` : ''));
    expect(scoutEvents).toEqual(['environment: environment + baseline', 'codebase: Make the greeting say "Hi" instead of "Hello".', 'codebase: greeting word after replan']);
    expect(read(root, 'agent/context_002.md')).toContain('### Scout A (codebase) — query "greeting word after replan"');
    expect(read(root, 'agent/context_002.md')).not.toContain('### Scout B');
    for (const f of ['agent/context_003.md', 'agent/context_004.md']) {
      expect(read(root, f)).not.toContain('### Scout');
      expect(read(root, f)).toContain('(none yet)');
    }
    expect(third).toContain('Skip re-query when the failures are clearly implementation logic errors with no codebase context gap.');
    expect(third).toContain('Re-query Scout A (scout_codebase) when the failures suggest wrong files targeted, missed dependencies, or violated invariants.');
    expect(third).toContain('Re-query Scout B (scout_environment with the failing run_id) when they suggest misinterpreted build/test output or undetected environment issues.');
  });
});

describe('"Cancel — Partial changes preserved — no artifact created"', () => {
  const runsRoot = (root: string): string => path.join(root, '.editwarden', 'runs');
  const metrics = (runDir: string): { result?: { status: string; exit_code: number }; editor?: { status: string } } => JSON.parse(fs.readFileSync(path.join(runDir, 'metrics.json'), 'utf8'));

  it('a cancel after a verification keeps the partial change and only metrics.json, which says cancelled', async () => {
    const root = makeProject(GREETING_PROJECT);
    const controller = new AbortController();
    const r = await runEditorWithServer(root, { turns: [setGreeting('Hey'), VERIFY, setGreeting('Hi'), VERIFY, complete('x')] }, { editor: { signal: controller.signal, onEvent: (e) => e.type === 'verify-end' && controller.abort() } });
    expect(r.status).toBe('cancelled');
    expect(r.exitCode).toBe(130);
    // Partial changes preserved.
    expect(read(root, GREETING_FILE)).toContain("'Hey, '");
    // No artifact: no summary, no stuck report, no context snapshot, no editor.json, transcript or calls, no verification evidence.
    expect(fs.readdirSync(r.runDir)).toEqual(['metrics.json']);
    expect(fs.readdirSync(runsRoot(root)).filter((d) => !d.startsWith('.'))).toEqual([r.runId]);
    expect(fs.existsSync(path.join(root, 'agent', 'context_001.md'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'agent', 'summary.md'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'agent', 'stuck_report.md'))).toBe(false);
    expect(r.contexts).toEqual([]);
    expect(r.transcriptFile).toBeUndefined();
    // The one record says what happened.
    expect(metrics(r.runDir)).toMatchObject({ result: { status: 'cancelled', exit_code: 130 }, editor: { status: 'cancelled' } });
  });

  it('a cancel before the model loop (during the baseline) still leaves metrics.json saying cancelled, and nothing else', async () => {
    const root = makeProject(GREETING_PROJECT);
    const controller = new AbortController();
    const r = await runEditorWithServer(root, { turns: [setGreeting('Hi'), complete('x')] }, { editor: { signal: controller.signal, onEvent: (e) => e.type === 'scout' && controller.abort() } });
    expect(r.status).toBe('cancelled');
    expect(fs.readdirSync(r.runDir)).toEqual(['metrics.json']);
    expect(fs.readdirSync(runsRoot(root)).filter((d) => !d.startsWith('.'))).toEqual([r.runId]);
    expect(metrics(r.runDir)).toMatchObject({ result: { status: 'cancelled', exit_code: 130 }, editor: { status: 'cancelled' } });
    expect(fs.existsSync(path.join(root, 'agent'))).toBe(false);
    expect(read(root, GREETING_FILE)).toContain("'Hello, '");
  });

  it('a context snapshot from an earlier session is not touched by a cancel', async () => {
    const root = makeProject({ ...GREETING_PROJECT, 'agent/context_001.md': '# earlier\n' });
    const controller = new AbortController();
    const r = await runEditorWithServer(root, { turns: [setGreeting('Hey'), VERIFY, complete('x')] }, { editor: { signal: controller.signal, onEvent: (e) => e.type === 'verify-end' && controller.abort() } });
    expect(r.status).toBe('cancelled');
    expect(read(root, 'agent/context_001.md')).toBe('# earlier\n');
    expect(fs.existsSync(path.join(root, 'agent', 'context_002.md'))).toBe(false);
  });
});
