/**
 * The Editor specification's words, pasted: the counters exactly as its
 * example scenario writes them (through the model's verify result, the
 * context snapshots, the stuck report and the CLI's live lines), and its
 * "Optional Scout re-query … Skip re-query" at REPLAN (the scouts are
 * re-queried only when the Editor asks), and "Cancel — Partial changes
 * preserved — no artifact created", "Network Access — Unrestricted" and
 * "'Minimal' is a qualitative judgment — no hard size limits" (the Editor
 * profile's defaults, which give way to what the user configured).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import '../../wasm-baseline.js';
import { defaultConfig } from '../../../src/config/config.js';
import { configuredKeys } from '../../../src/config/configured.js';
import { configUnder, runProfile } from '../../../src/runs/profile.js';
import { BIN, bin, cleanup as cleanupBin, ensureBuilt, interruptWhen, script } from '../helpers/bin.js';
import { startScriptedServer } from '../../../src/agent/providers/scripted-server.js';
import { attemptLines, afterVerification, initialCounters } from '../../../src/agent/editor/counters.js';
import { cleanup, complete, GREETING_FILE, GREETING_PROJECT, hypothesis, lastToolResult, makeProject, read, runEditorWithServer, setGreeting, VERIFY, verifyResults } from './helpers.js';

beforeAll(ensureBuilt);
afterEach(() => {
  cleanup();
  cleanupBin();
});

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

/**
 * A listener on the host's loopback: a command in a sandbox without network (its own empty loopback) cannot reach it.
 * A project whose verification connects to it passes only where the network is on.
 */
let listener: net.Server;
let port = 0;
beforeAll(async () => {
  listener = net.createServer((s) => s.end());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

const probeProject = (extraConfig = ''): string =>
  makeProject({
    'probe.js': `require('node:net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(1); });\n`,
    '.editwarden.yml': `verify:\n  test: "node probe.js"\n  timeout: 60\n${extraConfig}`,
  });

/** One turn writing `n` new files, then the completion. */
const writeFiles = (n: number) => [
  { tool_calls: Array.from({ length: n }, (_, i) => ({ name: 'write_file', arguments: { path: `src/part${i + 1}.js`, content: `export const part${i + 1} = ${i + 1};\n` } })) },
  complete(`Wrote ${n} files.`),
];

let onDefaults: ReturnType<typeof bin> | undefined;
/**
 * `editwarden run --mode editor` where the user configured neither the network nor a size limit: eleven files
 * written, verified by the probe. One process answers both rules below that ask what the CLI does on the defaults
 * (its header, its exit); the first to ask runs it.
 */
function cliRunOnDefaults(): ReturnType<typeof bin> {
  if (!onDefaults) {
    const root = probeProject();
    onDefaults = bin(['run', '--mode', 'editor', '--task', 'Write eleven files.', '--model', script(root, writeFiles(11)), '--root', root]);
  }
  return onDefaults;
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
    // Thirteen verifications: the test file run by itself (one process each) rather than through `node --test` (two).
    const root = makeProject({ ...GREETING_PROJECT, '.editwarden.yml': 'verify:\n  test: "node test/greeting.test.js"\n  timeout: 60\n' });
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
    const r = await runEditorWithServer(
      root,
      { turns: [setGreeting('Hey'), VERIFY, setGreeting('Hi'), VERIFY, complete('x')] },
      { editor: { run: { signal: controller.signal }, listeners: { onEvent: (e) => e.type === 'verify-end' && controller.abort() } } },
    );
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
    const r = await runEditorWithServer(root, { turns: [setGreeting('Hi'), complete('x')] }, { editor: { run: { signal: controller.signal }, listeners: { onEvent: (e) => e.type === 'scout' && controller.abort() } } });
    expect(r.status).toBe('cancelled');
    expect(fs.readdirSync(r.runDir)).toEqual(['metrics.json']);
    expect(fs.readdirSync(runsRoot(root)).filter((d) => !d.startsWith('.'))).toEqual([r.runId]);
    expect(metrics(r.runDir)).toMatchObject({ result: { status: 'cancelled', exit_code: 130 }, editor: { status: 'cancelled' } });
    expect(fs.existsSync(path.join(root, 'agent'))).toBe(false);
    expect(read(root, GREETING_FILE)).toContain("'Hello, '");
  });

  it('Ctrl-C on `editwarden run --mode editor`: exit 130, the partial change kept, the run folder holds only metrics.json', async () => {
    const root = makeProject(GREETING_PROJECT);
    const server = await startScriptedServer({ turns: [setGreeting('Hey'), VERIFY, { text: 'Thinking about the next fix for a long while…', delay_ms: 30_000 }] });
    try {
      const { code, stdout } = await interruptWhen([BIN, 'run', '--mode', 'editor', '--task', 'Make the greeting say "Hi".', '--model', 'openai-compatible:scripted', '--base-url', server.openaiBaseUrl, '--root', root], 'Thinking about');
      expect(code).toBe(130);
      expect(stdout).toContain('Attempt 1: FAIL  → consecutive=1, total=1');
      const folder = /run folder: (\S+)/.exec(stdout)?.[1] as string;
      expect(fs.readdirSync(folder)).toEqual(['metrics.json']);
      expect(metrics(folder)).toMatchObject({ result: { status: 'cancelled', exit_code: 130 } });
      expect(fs.readdirSync(runsRoot(root)).filter((d) => !d.startsWith('.'))).toEqual([path.basename(folder)]);
      expect(fs.existsSync(path.join(root, 'agent', 'context_001.md'))).toBe(false);
      expect(read(root, GREETING_FILE)).toContain("'Hey, '");
    } finally {
      await server.close();
    }
  }, 30_000);

  it('a context snapshot from an earlier session is not touched by a cancel', async () => {
    const root = makeProject({ ...GREETING_PROJECT, 'agent/context_001.md': '# earlier\n' });
    const controller = new AbortController();
    const r = await runEditorWithServer(root, { turns: [setGreeting('Hey'), VERIFY, complete('x')] }, { editor: { run: { signal: controller.signal }, listeners: { onEvent: (e) => e.type === 'verify-end' && controller.abort() } } });
    expect(r.status).toBe('cancelled');
    expect(read(root, 'agent/context_001.md')).toBe('# earlier\n');
    expect(fs.existsSync(path.join(root, 'agent', 'context_002.md'))).toBe(false);
  });
});

describe('"Network Access — Unrestricted": the Editor profile turns the sandbox network on by default', () => {
  const baselinePassed = (root: string, runId: string | null): boolean | undefined => verifyResults(root, runId as string)[0]?.passed;

  it('the profiles: editor on, every other mode off; a configured sandbox.network wins', () => {
    const config = defaultConfig();
    expect(runProfile('editor', { config, configured: [] }).network).toBe('on');
    for (const mode of ['headless', 'interactive', 'controlled'] as const) expect(runProfile(mode, { config, configured: [] }).network).toBe('off');
    const off = { ...config, sandbox: { ...config.sandbox, network: 'off' as const } };
    expect(runProfile('editor', { config: off, configured: ['sandbox.network'] }).network).toBe('off');
    const on = { ...config, sandbox: { ...config.sandbox, network: 'on' as const } };
    expect(runProfile('headless', { config: on, configured: ['sandbox.network'] }).network).toBe('on');
  });

  it("the Editor's verification reaches the network (its baseline connects to a listener on the host)", async () => {
    const root = probeProject();
    const r = await runEditorWithServer(root, { turns: [complete('nothing to change')] });
    expect(baselinePassed(root, r.record.baseline_run_id)).toBe(true);
    expect(r.status).toBe('success');
  });

  it('sandbox.network: false set by the user keeps it off for the Editor', async () => {
    const root = probeProject('sandbox:\n  network: false\n');
    const r = await runEditorWithServer(root, { turns: [complete('nothing to change'), complete('still nothing', 'blocked')] }, { editor: { configured: ['sandbox.network'] } });
    expect(baselinePassed(root, r.record.baseline_run_id)).toBe(false);
  });

  it('through the CLI: the run header says "network: on", and the config file\'s sandbox.network: false turns it off', () => {
    const a = cliRunOnDefaults();
    expect(a.stdout.split('\n')[0]).toContain('network: on');
    expect(a.code).toBe(0);
    const off = probeProject('sandbox:\n  network: false\n');
    const b = bin([
      'run',
      '--mode',
      'editor',
      '--task',
      'Nothing to change.',
      '--model',
      script(off, [{ tool_calls: [{ name: 'task_completion', arguments: { summary: 'nothing' } }] }, { tool_calls: [{ name: 'task_completion', arguments: { summary: 'no', status: 'blocked' } }] }]),
      '--root',
      off,
    ]);
    expect(b.stdout.split('\n')[0]).toContain('network: off (sandbox.network: off)');
    expect(b.code).toBe(4);
  });

  it('doctor states it', () => {
    const root = makeProject({});
    const r = bin(['doctor', '--only', 'sandbox', '--root', root]);
    expect(r.stdout).toContain('Network: off for headless, interactive and controlled runs; on for the Editor (run --mode editor, apply-proposal), whose specification gives it unrestricted network access');
    const off = makeProject({ '.editwarden.yml': 'sandbox:\n  network: false\n' });
    expect(bin(['doctor', '--only', 'sandbox', '--root', off]).stdout).toContain('off for the Editor too (sandbox.network is set in the config)');
  });
});

describe('"\'Minimal\' is a qualitative judgment — no hard size limits"', () => {
  const green = { '.editwarden.yml': 'verify:\n  test: "node -e 0"\n  timeout: 60\n' };

  it('the profiles: the Editor has no size limit unless the user set one; headless keeps the ADR defaults', () => {
    const config = defaultConfig();
    expect(runProfile('editor', { config, configured: [] }).sizeLimits).toEqual({ max_files: null, max_lines_changed: null });
    expect(runProfile('headless', { config, configured: [] }).sizeLimits).toEqual({ max_files: 10, max_lines_changed: 500 });
    expect(runProfile('editor', { config, configured: ['constraints.max_files'] }).sizeLimits).toEqual({ max_files: 10, max_lines_changed: null });
    const editorConfig = configUnder(config, runProfile('editor', { config, configured: [] }));
    expect(editorConfig.constraints.max_files).toBe(Number.POSITIVE_INFINITY);
  });

  it('configuredKeys reads what the user wrote (file and flags), not the defaults', () => {
    const root = makeProject({ '.editwarden.yml': 'constraints:\n  max_files: 10\nsandbox:\n  network: false\n  env: [A]\n' });
    expect(configuredKeys(root, undefined, { constraints: { max_lines_changed: 40 } })).toEqual(['constraints.max_files', 'constraints.max_lines_changed', 'sandbox.env', 'sandbox.network']);
    expect(configuredKeys(makeProject({}))).toEqual([]);
  });

  it('an Editor run writing 11 files does not stop on the headless default max_files 10 (library)', async () => {
    const root = makeProject(green);
    const r = await runEditorWithServer(root, { turns: writeFiles(11) }, { editor: { configured: [] } });
    expect(r.status).toBe('success');
    expect(r.exitCode).toBe(0);
    expect(r.record.files_changed).toHaveLength(11);
  });

  it('through the CLI: 11 files succeed (header "size limits: none"); a max_files: 10 the user wrote still stops the run with exit 2', () => {
    const a = cliRunOnDefaults();
    expect(a.stdout.split('\n')[0]).toContain('size limits: none');
    expect(a.code).toBe(0);
    const bound = makeProject({ '.editwarden.yml': `${green['.editwarden.yml']}constraints:\n  max_files: 10\n` });
    const b = bin(['run', '--mode', 'editor', '--task', 'Write eleven files.', '--model', script(bound, writeFiles(11)), '--root', bound]);
    expect(b.stdout.split('\n')[0]).toContain('size limits: max_files 10, max_lines_changed none');
    expect(b.code).toBe(2);
    const flagged = makeProject(green);
    const c = bin(['run', '--mode', 'editor', '--max-files', '10', '--task', 'Write eleven files.', '--model', script(flagged, writeFiles(11)), '--root', flagged]);
    expect(c.code).toBe(2);
  });
});
