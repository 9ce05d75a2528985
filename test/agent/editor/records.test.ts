/**
 * The Editor's records name one outcome (editor.json, metrics.json, transcript, the terminal's stop
 * line, the exit code), and a hard stop with no hypothesis asks the model once, without tools, for
 * its hypotheses — through the real binary with a replayed model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanup, ensureBuilt, jsonl, runDirOf, script, tempProject } from '../helpers/bin.js';
import { GREETING_PROJECT } from './helpers.js';

beforeAll(ensureBuilt);
afterEach(cleanup);

const blocked = { tool_calls: [{ name: 'task_completion', arguments: { summary: 'The test wants Hi but I may not change it.', status: 'blocked' } }] };
const hypotheses = { text: '1. The greeting word is hard-coded as Hello in src/greeting.js.\n2. A next session should change that word first.' };

describe('an Editor hard stop is a hard stop in every record', () => {
  it('blocked: exit 4, editor.json, metrics.json, the transcript and the terminal all say hard-stop (never "completed")', () => {
    const root = tempProject(GREETING_PROJECT);
    const r = bin(['run', '--mode', 'editor', '--task', 'Make the greeting say Hi.', '--model', script(root, [blocked, hypotheses]), '--root', root]);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('■ hard-stop: ');
    expect(r.stdout).not.toContain('■ completed');
    const dir = runDirOf(root, 'editor.json');
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'editor.json'), 'utf8'));
    expect(record).toMatchObject({ status: 'hard-stop', exit_code: 4 });
    const metrics = JSON.parse(fs.readFileSync(path.join(dir, 'metrics.json'), 'utf8'));
    expect(metrics.status).toBe('failed');
    expect(metrics.result).toMatchObject({ status: 'hard-stop', exit_code: 4 });
    expect(JSON.stringify(metrics)).not.toContain('"status":"completed"');
    const ends = jsonl(path.join(dir, 'transcript.jsonl')).filter((e) => e.type === 'end');
    expect(ends).toEqual([expect.objectContaining({ status: 'hard-stop', exit_code: 4 })]);
  });

  it('with no hypothesis recorded, the Editor is asked once (no tools) and the stuck report carries its answer', () => {
    const root = tempProject(GREETING_PROJECT);
    const r = bin(['run', '--mode', 'editor', '--task', 'Make the greeting say Hi.', '--model', script(root, [blocked, hypotheses]), '--root', root, '--json']);
    expect(r.code).toBe(4);
    const out = JSON.parse(r.stdout);
    const report = fs.readFileSync(out.stuck_report, 'utf8');
    expect(report).toContain('The greeting word is hard-coded as Hello in src/greeting.js.');
    const record = JSON.parse(fs.readFileSync(path.join(out.run_dir, 'editor.json'), 'utf8'));
    expect(record.hypotheses.map((h: { source?: string }) => h.source)).toContain('asked-at-hard-stop');
  });

  it('when the model cannot answer, the stuck report still carries a hypothesis (named as the last failure)', () => {
    const root = tempProject(GREETING_PROJECT);
    const r = bin(['run', '--mode', 'editor', '--task', 'Make the greeting say Hi.', '--model', script(root, [blocked]), '--root', root, '--json']);
    expect(r.code).toBe(4);
    const out = JSON.parse(r.stdout);
    expect(fs.readFileSync(out.stuck_report, 'utf8')).toContain('The Editor gave no hypothesis');
  });
});

describe("the Editor's read-only access to the Verifier's evidence", () => {
  it('read_file of .editwarden/runs/<run_id>/verify/** works for the Editor; writing there stays refused', () => {
    const root = tempProject(GREETING_PROJECT);
    const log = '.editwarden/runs/20260101T000000Z-abcdef/verify/1/combined.log';
    fs.mkdirSync(path.join(root, path.dirname(log)), { recursive: true });
    fs.writeFileSync(path.join(root, log), Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const turns = [
      { tool_calls: [{ name: 'read_file', arguments: { path: log, start_line: 450, end_line: 500 } }] },
      { tool_calls: [{ name: 'write_file', arguments: { path: log, content: 'forged\n', overwrite: true } }] },
      { tool_calls: [{ name: 'read_file', arguments: { path: '.editwarden/runs/20260101T000000Z-abcdef/../../journal' } }] },
      blocked,
      hypotheses,
    ];
    const r = bin(['run', '--mode', 'editor', '--task', 'Make the greeting say Hi.', '--model', script(root, turns), '--root', root, '--json']);
    expect(r.code).toBe(4);
    const results = jsonl(JSON.parse(r.stdout).transcript).filter((e) => e.type === 'tool_result');
    expect(results[0]).toMatchObject({ tool: 'read_file', status: 'ok' });
    expect(String(results[0]?.output)).toContain('line 500');
    expect(results[1]).toMatchObject({ tool: 'write_file' });
    expect(results[1]?.status).not.toBe('ok');
    expect(fs.readFileSync(path.join(root, log), 'utf8')).toContain('line 1\n');
    expect(results[2]?.status).not.toBe('ok');
  });

  it("Scout B's log tail is not capped below what the log holds (log_lines above 400 accepted)", async () => {
    const { ScoutEnvironmentArgs } = await import('../../../src/agent/editor/tools.js');
    expect(ScoutEnvironmentArgs.safeParse({ run_id: '20260101T000000Z-abcdef', log_lines: 5000 }).success).toBe(true);
  });
});
