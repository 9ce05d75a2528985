/**
 * The Editor's system prompt and its first message. The prompt says how
 * the session works (scouts, fix forward, the counters, REPLAN, hard stop,
 * completion only on green) and carries the edit-file guidelines every
 * writing agent gets; the test-generation instruction is added when the
 * repository has no test suite, the dry-run note in a dry run. The first
 * message is the task, what the scouts found, and — with --retry — the
 * previous stuck report, and nothing else of earlier sessions. Pure text.
 */
import { activeEditSection, EDIT_GUIDELINES } from '../prompts/index.js';
import { HARD_STOP_AFTER, REPLAN_AFTER } from './counters.js';
import type { CodebasePayload } from '../scouts/codebase.js';
import type { EnvironmentPayload } from '../scouts/environment.js';

const EDITOR_PROMPT = `You are editwarden's Editor: the one orchestrator of this task and the only writer. You interpret the task, ask the scouts, make minimal changes that follow this repository's conventions, have them verified, and finish with a prose summary.

How this session works:
- The scouts answer at once from the repository itself. scout_codebase: the files relevant to a query, risk zones, conventions. scout_environment: build and test commands, test framework, toolchain, the baseline of failures before any edit; with a run_id, the interpretation of that verification run. When their guidance conflicts, you decide; nobody else will and nobody can be asked.
- Read before you change. Change as little as the task needs, in the style the scouts report (indentation, quotes, naming, test layout). Keep away from risk zones (generated, vendored, widely imported, public API) unless the task is about them.
- verify runs the full verification: the build, then the tests. It answers PASS or FAIL with a run_id. On FAIL the broken state is kept — never revert: diagnose from the output (scout_environment with the run_id gives more), fix forward, verify again.
- Before each fix, say what you believe with record_hypothesis. Your hypotheses become the stuck report if you get stuck, and the "why" of the summary if you succeed.
- After ${REPLAN_AFTER} consecutive failed verifications you are told to REPLAN: drop the approach that failed, decide whether to re-query a scout (Scout A when you may have targeted the wrong files or missed a dependency or invariant; Scout B when you may have misread the build/test output or missed an environment issue; neither when it is plainly a logic error in your change), record a new approach with record_hypothesis, and go on. The scope never changes with a REPLAN.
- After ${HARD_STOP_AFTER} verifications without a green one, the session stops (hard stop); your changes are kept and a stuck report is written.
- When the task is done, call task_completion with a prose summary of what you changed and why. Unverified changes are verified first; the session ends only on green. If you cannot finish, call task_completion with status "blocked".
- The only commands that run are the verification's. .editwarden/ (the Verifier's evidence) is off limits, and so is everything outside the project root. agent/ holds this session's context snapshots; you may read them.
`;

const DRY_RUN_NOTE = `This is a DRY RUN. Your edits go to an overlay: reads, listings and searches see them, the disk does not change, and nothing is verified (there is no verify tool). When the change is complete, call task_completion: your changes become one unified diff, saved as a proposal that \`editwarden apply-proposal\` later applies and verifies. Take extra care that the change would build and pass the tests.
`;

/** The test-generation instruction, for a repository without a test suite. */
function testGenerationNote(env: EnvironmentPayload, layoutHint: string | null): string {
  const framework = env.suggested_framework ?? 'the test framework usual for this language';
  const run = env.test
    ? `The Verifier runs them with \`${env.test.command}\`.`
    : framework === 'node:test'
      ? 'So that the Verifier runs them, add a "test" script to package.json (for example "node --test").'
      : 'Put them where the detected test command of this project will find them, so the Verifier runs them.';
  return `## Tests

This repository has no test suite. Add tests for what you change, written with ${framework} (detected from the package files)${layoutHint ? `, laid out like ${layoutHint}` : ''}. ${run} A change is not done until its tests pass in a verification.
`;
}

export interface PromptOptions {
  dryRun: boolean;
  activeEdit: boolean;
  tools: readonly string[];
  environment: EnvironmentPayload;
  layoutHint: string | null;
}

export function buildEditorPrompt(o: PromptOptions): string {
  const parts = [EDITOR_PROMPT];
  if (o.dryRun) parts.push(DRY_RUN_NOTE);
  parts.push(`Tools available: ${o.tools.join(', ')}.\n`, EDIT_GUIDELINES);
  if (!o.environment.has_test_suite) parts.push(testGenerationNote(o.environment, o.layoutHint));
  if (o.activeEdit) parts.push(activeEditSection());
  return parts.join('\n');
}

function list(items: string[], empty: string): string {
  return items.length === 0 ? `- ${empty}` : items.map((i) => `- ${i}`).join('\n');
}

/** What the scouts found, condensed for the first message (the raw payloads are in the context file). */
export function scoutDigest(code: CodebasePayload, env: EnvironmentPayload): string {
  const c = code.conventions;
  const conventions = [
    `indentation: ${c.indentation.style}${c.indentation.width ? ` (${c.indentation.width})` : ''}`,
    ...(c.quotes ? [`quotes: ${c.quotes.value}`] : []),
    ...(c.semicolons ? [`semicolons: ${c.semicolons.value}`] : []),
    ...(c.function_names ? [`function names: ${c.function_names.value}`] : []),
    ...(c.file_names ? [`file names: ${c.file_names.value}`] : []),
    `tests: ${c.tests.files} file(s), ${c.tests.layout}${c.tests.naming ? `, named ${c.tests.naming}` : ''}${c.tests.examples.length > 0 ? ` (e.g. ${c.tests.examples.join(', ')})` : ''}`,
  ];
  const baseline =
    'skipped' in env.baseline
      ? `not run (${env.baseline.skipped})`
      : `run ${env.baseline.run_id}: ${env.baseline.passed ? 'green' : `FAILING before any edit — ${env.baseline.lines.join('; ')}${env.baseline.first_errors.length > 0 ? `; first errors: ${env.baseline.first_errors.join(' | ')}` : ''}`}`;
  return [
    '### Relevant files (Scout A)',
    list(
      code.relevant.slice(0, 10).map((r) => `${r.path} — ${r.reasons.join('; ')}`),
      'nothing matched the task; search yourself',
    ),
    '',
    '### Risk zones (Scout A)',
    list(
      code.risk_zones.slice(0, 12).map((r) => `${r.path} [${r.kind}] ${r.detail}`),
      'none found',
    ),
    '',
    '### Conventions (Scout A)',
    list(conventions, 'none observed'),
    '',
    '### Environment (Scout B)',
    list(
      [
        `build: ${env.build ? `\`${env.build.command}\` (${env.build.source})` : 'none'}`,
        `test: ${env.test ? `\`${env.test.command}\` (${env.test.source})` : 'none'}${env.framework ? `, framework ${env.framework}` : ''}`,
        `test suite: ${env.has_test_suite ? `yes (${env.test_files} test file(s))` : `no${env.suggested_framework ? ` — write tests with ${env.suggested_framework}` : ''}`}`,
        `toolchain: ${env.toolchain.map((t) => `${t.tool} ${t.version ?? '(not found)'}`).join(', ') || 'not probed'}`,
        `baseline: ${baseline}`,
      ],
      '',
    ),
  ].join('\n');
}

export function firstMessage(task: string, digest: string, contextFile: string | null, seed: { runId: string; text: string } | null): string {
  const parts = [task.trim(), '', `## What the scouts found${contextFile ? ` (raw payloads: ${contextFile})` : ''}`, '', digest];
  if (seed) {
    parts.push(
      '',
      // The stuck report only (the design: "Next session receives stuck report only (not full history)").
      '## The previous attempt at this task got stuck',
      '',
      'Its stuck report follows; it is all you get of that session. Do not repeat the approaches it lists as failed; start from its hypotheses and the errors it names.',
      '',
      seed.text.trim(),
    );
  }
  return `${parts.join('\n')}\n`;
}
