/**
 * What a person sees of a real Claude Code session (npm @anthropic-ai/claude-code,
 * pinned, scripted model on 127.0.0.1) in a project protected by `editwarden
 * init claude`: the hooked native Edit (with its diff and its undo step), the
 * native Write the hook refused (code and hint), and the edit made over MCP
 * all appear in `editwarden log` and `editwarden report`, under the client's
 * session id — and the MCP session's run wrote its metrics.json when Claude
 * exited and closed the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE, THIRTY_LINES, cleanup, editwarden, project, runClaude } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

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

describe('a Claude Code session in the event log', () => {
  it('shows the native edit, the refusal and the MCP edit in log and report; the MCP run has its metrics.json', async () => {
    const root = project({ 'notes.txt': 'alpha\nbeta\ngamma\n', 'big.txt': THIRTY_LINES });
    expect(editwarden(['init', 'claude', '--root', root]).code).toBe(0);
    const notes = path.join(root, 'notes.txt');
    const run = await runClaude(
      root,
      [
        { name: 'Read', args: { file_path: notes } },
        { name: 'Edit', args: { file_path: notes, old_string: 'beta', new_string: 'BETA <script>' } },
        { name: 'Read', args: { file_path: path.join(root, 'big.txt') } },
        { name: 'Write', args: { file_path: path.join(root, 'big.txt'), content: 'gone\n' } },
        { name: 'mcp__editwarden__edit_file', args: { path: 'notes.txt', old_text: 'gamma', new_text: 'GAMMA' } },
      ],
      ['--allowedTools', 'mcp__editwarden__*'],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(notes, 'utf8')).toBe('alpha\nBETA <script>\nGAMMA\n');

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
    expect(report.stdout).toContain('**`E_DRAMATIC_REDUCTION`**');
    const html = editwarden(['report', '--root', root, '--all', '--format', 'html']);
    expect(html.stdout).toContain('+BETA &lt;script&gt;');
    expect(html.stdout).toContain('+GAMMA');
    expect(html.stdout).toContain('E_DRAMATIC_REDUCTION');
  }, 180_000);
});
