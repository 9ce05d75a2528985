/**
 * The real Claude Code (npm @anthropic-ai/claude-code, pinned) protected by
 * `editwarden init claude`, with the scripted model server on 127.0.0.1
 * playing the model. No skips: if the client cannot run, these tests fail.
 * Each Claude Code session costs seconds of CPU: one session is asked every
 * question its result answers (its edits, undo/redo, and the log and report
 * a person reads afterwards) rather than one session per question.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE, THIRTY_LINES, cleanup, editwarden, hookRecordLines, protectedProject, runClaude, tempDir, toolResults } from './helpers.js';

beforeAll(() => {
  // A missing client is a failure, not a skip: `npm ci` installs it (devDependency).
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

describe('Claude Code native edits go through editwarden', () => {
  /**
   * One Claude Code session shows three things: what its edits do (native Edit through the hooks, editwarden over
   * MCP, undo/redo of both), what it is refused (a Write that wipes a 30-line file, a Write outside the root, an Edit
   * of .editwarden.yml: each code reaching the model, nothing written) and what a person sees of it afterwards — the
   * hooked Edit (its diff and undo step), the native Write the hook refused (code and hint) and the MCP edit in
   * `editwarden log` and `editwarden report`, under the client's session id, and the MCP session's metrics.json
   * written when Claude exited and closed the server.
   */
  it('lets a valid native Edit through and calls editwarden over MCP; refuses a Write that wipes a 30-line file, a Write outside the root and an Edit of .editwarden.yml, with the code reaching the model; log and report show the edit, the refusal and the MCP edit; `editwarden undo` restores both edits, `redo` puts the last back', async () => {
    const original = 'alpha\nbeta\ngamma\n';
    const config = 'constraints:\n  max_files: 5\n';
    const root = protectedProject({ 'notes.txt': original, 'big.txt': THIRTY_LINES, '.editwarden.yml': config });
    const file = path.join(root, 'notes.txt');
    const outside = path.join(tempDir('ew-outside-'), 'escape.txt');
    const run = await runClaude(
      root,
      [
        { name: 'Read', args: { file_path: file } },
        { name: 'Edit', args: { file_path: file, old_string: 'beta', new_string: 'BETA <script>' } },
        { name: 'Read', args: { file_path: path.join(root, 'big.txt') } },
        { name: 'Write', args: { file_path: path.join(root, 'big.txt'), content: 'gone\n' } },
        { name: 'Write', args: { file_path: outside, content: 'out\n' } },
        { name: 'Read', args: { file_path: path.join(root, '.editwarden.yml') } },
        { name: 'Edit', args: { file_path: path.join(root, '.editwarden.yml'), old_string: 'max_files: 5', new_string: 'max_files: 100000' } },
        { name: 'mcp__editwarden__edit_file', args: { path: 'notes.txt', old_text: 'gamma', new_text: 'GAMMA' } },
      ],
      ['--allowedTools', 'mcp__editwarden__*'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    // The MCP call comes last: a Read repeated while Claude's MCP servers connect may come before it, never before the refusals.
    expect(results.length).toBeGreaterThanOrEqual(8);
    expect(results[3]).toContain('E_DRAMATIC_REDUCTION');
    expect(results[3]).toContain('hint:');
    expect(results[4]).toContain('E_OUTSIDE_ROOT');
    expect(results[6]).toContain('E_DENIED_PATH');
    expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(THIRTY_LINES);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(path.join(root, '.editwarden.yml'), 'utf8')).toBe(config);
    expect(results.at(-1)).toContain('"status":"applied"');
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha\nBETA <script>\nGAMMA\n');
    // PostToolUse recorded the native change.
    const changes = hookRecordLines(root);
    expect(changes).toContain('"path":"notes.txt","change":"modified"');

    expectSessionInLogAndReport(root);

    expect(editwarden(['undo', '--root', root]).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha\nBETA <script>\ngamma\n');
    const second = editwarden(['undo', '--root', root]);
    expect(second.stdout).toContain('claude Edit');
    expect(fs.readFileSync(file, 'utf8')).toBe(original);
    expect(editwarden(['redo', '--root', root]).code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('alpha\nBETA <script>\ngamma\n');
  }, 180_000);

  /**
   * One session in a project whose .editwarden.yml is a link to tools/editwarden.yml (max_files: 1), with a link
   * graph that leads out of the root: the attacks are refused first, then the limit counts across the session.
   */
  it('the link-graph and symlinked-config attacks: native Writes to up/x, cfgdir/.editwarden.yml and the config’s real target are denied; so is MCP write_file of the target. Then limits count per session: of three Writes under max_files: 1 (two native, one through Bash), the second and third are refused, naming the usage', async () => {
    const config = 'constraints:\n  max_files: 1\n';
    const root = protectedProject({ 'tools/editwarden.yml': config, 'deep/keep.txt': 'k\n', 'sub/keep.txt': 's\n' });
    fs.symlinkSync('tools/editwarden.yml', path.join(root, '.editwarden.yml'));
    fs.symlinkSync('.', path.join(root, 'a'));
    fs.symlinkSync('a/..', path.join(root, 'up'));
    fs.symlinkSync('../sub', path.join(root, 'deep', 'X'));
    fs.symlinkSync('deep/X/..', path.join(root, 'cfgdir'));
    const parentX = path.join(path.dirname(root), 'x');
    const run = await runClaude(
      root,
      [
        { name: 'Write', args: { file_path: path.join(root, 'up', 'x'), content: 'out\n' } },
        // Claude Code writes an existing file only after reading it.
        { name: 'Read', args: { file_path: path.join(root, 'cfgdir', '.editwarden.yml') } },
        { name: 'Write', args: { file_path: path.join(root, 'cfgdir', '.editwarden.yml'), content: 'constraints: {}\n' } },
        { name: 'Read', args: { file_path: path.join(root, 'tools', 'editwarden.yml') } },
        { name: 'Write', args: { file_path: path.join(root, 'tools', 'editwarden.yml'), content: 'constraints: {}\n' } },
        { name: 'mcp__editwarden__write_file', args: { path: 'tools/editwarden.yml', content: 'constraints: {}\n', overwrite: true } },
        { name: 'Write', args: { file_path: path.join(root, 'a.txt'), content: 'a\n' } },
        { name: 'Write', args: { file_path: path.join(root, 'b.txt'), content: 'b\n' } },
        { name: 'Bash', args: { command: 'echo c > c.txt', description: 'third file' } },
      ],
      ['--allowedTools', 'mcp__editwarden__*', 'Bash'],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.requests);
    expect(results, run.stdout).toHaveLength(9);
    expect(results[0]).toMatch(/E_OUTSIDE_ROOT|E_DENIED_PATH/);
    for (const i of [2, 4, 5]) expect(results[i]).toContain('E_DENIED_PATH');
    expect(fs.existsSync(parentX)).toBe(false);
    expect(fs.readFileSync(path.join(root, 'tools', 'editwarden.yml'), 'utf8')).toBe(config);

    expect(results[7]).toContain('E_CONSTRAINT');
    expect(results[7]).toContain('2 of 1 files used in this session: a.txt, b.txt');
    expect(results[8]).toContain('2 of 1 files used in this session: a.txt, c.txt');
    expect(fs.existsSync(path.join(root, 'a.txt'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(false);
  }, 150_000);
});

interface Logged {
  kind: string;
  path?: string;
  code?: string;
  hint?: string;
  tool?: string;
  diff?: string;
  checkpoint?: string;
  route: { via: string; client?: string; session?: string; run?: string };
}

/** The session's native Edit, refused Write and MCP edit as `editwarden log` and `editwarden report` show them. */
function expectSessionInLogAndReport(root: string): void {
  const log = editwarden(['log', '--root', root, '--json']);
  expect(log.code, log.stderr).toBe(0);
  const events = log.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Logged);
  const native = events.find((e) => e.kind === 'edit' && e.route.via === 'hook');
  expect(native).toMatchObject({ tool: 'Edit', path: 'notes.txt', checkpoint: expect.stringMatching(/^\d{8}-/), route: { client: 'claude', session: expect.any(String) } });
  expect(native?.diff).toContain('+BETA <script>');
  const refusal = events.find((e) => e.kind === 'refusal');
  expect(refusal).toMatchObject({ tool: 'Write', code: 'E_DRAMATIC_REDUCTION', path: 'big.txt', route: { via: 'hook', client: 'claude', session: native?.route.session } });
  expect(refusal?.hint).toBeTruthy();
  const mcp = events.find((e) => e.kind === 'edit' && e.route.via === 'mcp');
  // Claude Code's MCP client names itself in initialize: the route says so.
  expect(mcp).toMatchObject({ tool: 'edit_file', path: 'notes.txt', route: { client: expect.stringMatching(/claude/i) } });
  expect(mcp?.diff).toContain('+GAMMA');

  // The MCP server's run ended when Claude exited: its metrics and its end are written.
  const runId = mcp?.route.run ?? '';
  expect(fs.existsSync(path.join(root, '.editwarden', 'runs', runId, 'metrics.json'))).toBe(true);
  expect(events.some((e) => e.kind === 'run-end' && e.route.run === runId)).toBe(true);

  const text = editwarden(['log', '--root', root]);
  expect(text.stdout).toMatch(/refusal\s+E_DRAMATIC_REDUCTION Write big\.txt/);

  const report = editwarden(['report', '--root', root, '--session', native?.route.session ?? '', '--format', 'md']);
  expect(report.code, report.stderr).toBe(0);
  expect(report.stdout).toContain('+BETA <script>');
  expect(report.stdout).toContain('- **Refused:** `E_DRAMATIC_REDUCTION`');
  const html = editwarden(['report', '--root', root, '--all', '--format', 'html']);
  expect(html.stdout).toContain('+BETA &lt;script&gt;');
  expect(html.stdout).toContain('+GAMMA');
  expect(html.stdout).toContain('E_DRAMATIC_REDUCTION');
}
