/**
 * `editwarden log` and `editwarden report` over a real scripted run (exec
 * through the binary): every event is in `log --json`; the Markdown and HTML
 * reports hold every diff line, refusal code and command; text from the log
 * never becomes markup; GITHUB_STEP_SUMMARY gets the Markdown; a planted log
 * is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dirs.js';
import { cli, SCRIPTED, scriptedRun } from '../report/scripted-run.js';

let run: { root: string; runId: string };
beforeAll(() => {
  run = scriptedRun();
}, 60_000);

interface LoggedEvent {
  kind: string;
  time: string;
  path?: string;
  code?: string;
  command?: string;
  exit_code?: number | null;
  output?: string;
  paths: string[];
  route: { via: string; run?: string };
  checkpoint?: string;
  diff?: string;
}

/** `report --format md` over the run: one process, read by the log's headline rule and the Markdown rule. */
let markdown: ReturnType<typeof cli> | undefined;
const markdownReport = (): ReturnType<typeof cli> => {
  markdown ??= cli(['report', '--root', run.root, '--format', 'md']);
  return markdown;
};

function logJson(...extra: string[]): LoggedEvent[] {
  const r = cli(['log', '--root', run.root, '--json', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LoggedEvent);
}

describe('editwarden log', () => {
  it('--json has one object per event of the run: the edits (time, path, diff, undo step), the refusal (code), the command (exit code, files), the violation, the end', () => {
    const events = logJson();
    expect(events.map((e) => e.kind)).toEqual(['edit', 'edit', 'refusal', 'command', 'violation', 'run-end']);
    for (const e of events) {
      expect(Date.parse(e.time)).not.toBeNaN();
      expect(e.route).toEqual({ via: 'exec', run: run.runId });
    }
    const [edit, created, refusal, command, violation] = events;
    expect(edit).toMatchObject({ path: 'a.txt', checkpoint: expect.stringMatching(/^\d{8}-/) });
    expect(edit?.diff).toContain(SCRIPTED.diffLine);
    expect(created).toMatchObject({ path: SCRIPTED.scriptPath });
    expect(refusal).toMatchObject({ code: SCRIPTED.refusalCode, path: 'b.txt' });
    expect(command).toMatchObject({ command: SCRIPTED.command, exit_code: 3, paths: ['c.txt'] });
    // A command's change has its diff, as an edit's has; a failed one keeps its output.
    expect(command?.diff).toContain('+made\n');
    expect(command?.output).toContain('exit code 3');
    expect(violation).toMatchObject({ type: SCRIPTED.violation, path: 'd.txt' });
  });

  it('filters by run and by session', () => {
    expect(logJson('--run', run.runId)).toHaveLength(6);
    expect(logJson('--run', '20200101T000000Z-000000')).toEqual([]);
    expect(logJson('--session', 'nobody')).toEqual([]);
  });

  it('prints one line per event on the local clock, the date once; refusals and violations in bold red on a colour terminal; then the headline', () => {
    const plain = cli(['log', '--root', run.root], { TZ: 'UTC' });
    const lines = plain.stdout.trim().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toMatch(/^\d{4}-\d{2}-\d{2} \(UTC\)$/);
    expect(lines[1]).toMatch(/^\d{2}:\d{2}:\d{2} edit/);
    expect(lines[3]).toMatch(/refusal\s+E_NOT_FOUND edit_file b\.txt/);
    expect(lines[4]).toContain(`$ ${SCRIPTED.command} → exit 3; changed c.txt`);
    // The last line is the report's headline for the same scope, word for word.
    const md = markdownReport().stdout;
    expect(lines[7]).toMatch(/^run \S+: violation: A limit was violated: FileModification — max_files reached 4, limit 3 \(exit code 2\)\. \(files changed 3 \/ 3/);
    expect(md).toContain(lines[7]?.replace(/^run \S+: /, '').replace(/([_:])/g, '\\$1'));
    expect(plain.stdout).not.toContain('\u001b[');
    const colour = cli(['log', '--root', run.root], { NO_COLOR: '', FORCE_COLOR: '1' });
    const refusal = colour.stdout.split('\n')[3] ?? '';
    expect(refusal).toContain('\u001b[1m\u001b[31mrefusal');
  });
});

describe('editwarden report', () => {
  it("Markdown: the headline and usage against the run's own limits, what changed, then every diff line, refusal code and hint, command (with its diff and output) and violation", () => {
    const r = markdownReport();
    expect(r.status).toBe(0);
    const md = r.stdout;
    expect(md).toContain(`## editwarden report — run ${run.runId}`);
    expect(md).toContain('| files changed | 3 / 3 |');
    expect(md).toMatch(/\| tokens \| 120 \/ \d+ \|/);
    // What is different now comes before the timeline: the command's new file with its content.
    const changed = md.indexOf('### What changed since the start of the run');
    expect(changed).toBeGreaterThan(0);
    expect(md.indexOf('**added** `c.txt` (+1 −0)')).toBeGreaterThan(changed);
    expect(md.indexOf('**added** `c.txt`')).toBeLessThan(md.indexOf('### Timeline'));
    expect(md).toContain(SCRIPTED.diffLine);
    expect(md).toContain('- **Refused:** `E_NOT_FOUND`');
    expect(md).toContain('- **Hint:** Read the file again');
    expect(md).toContain(`- **Command:** \`${SCRIPTED.command}\``);
    expect(md).toContain('- **Result:** exit code 3 `E_COMMAND_FAILED`');
    expect(md).toContain('- **Changed:** `c.txt` (+1 −0)');
    expect(md).toMatch(/```diff\n--- \/dev\/null\n\+\+\+ b\/c\.txt\n@@ -0,0 \+1,1 @@\n\+made\n```/);
    expect(md).toMatch(/Output \(last lines\):\n\n```\n\$ echo made > c\.txt; exit 3\nexit code 3/);
    expect(md).toMatch(/↩️ Undo to here: `editwarden undo --to \d{8}-\d{6}-\d{3}-[0-9a-f]{4}`/);
    expect(md).toContain('`E_CONSTRAINT` FileModification');
    expect(md).toContain(`- **Report:** \`.editwarden/runs/${run.runId}/violation.md\``);
    // Prose never carries live markup: the created file's name is in code, its `<` escaped everywhere else.
    expect(md).toContain('`<script>x.txt`');
    expect(md.replace(/```diff\n[\s\S]*?\n```/g, '').replace(/`[^`\n]*`/g, '')).not.toMatch(/<script/);
  });

  it('HTML: one self-contained page holding every event, with no URL in any src or href', () => {
    const out = path.join(tempDir('ew-report-out-'), 'r.html');
    const r = cli(['report', '--root', run.root, '--format', 'html', '-o', out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const html = fs.readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain('<meta name="viewport"');
    expect(html).toContain('@media print');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?\s*(https?:|\/\/)/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).toContain('&lt;script&gt;x.txt');
    expect(html).toContain('+hi &lt;/pre&gt;&lt;script&gt;alert(&quot;diff&quot;)&lt;/script&gt;');
    // The page's only script is its own (unfold before printing).
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toContain(SCRIPTED.refusalCode);
    expect(html).toContain('echo made &gt; c.txt; exit 3');
  });

  it('appends the Markdown to $GITHUB_STEP_SUMMARY when it names a file (and only for Markdown)', () => {
    const summary = path.join(tempDir('ew-step-'), 'summary.md');
    fs.writeFileSync(summary, '# earlier step\n');
    const r = cli(['report', '--root', run.root, '--format', 'md'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.status).toBe(0);
    expect(fs.readFileSync(summary, 'utf8')).toBe(`# earlier step\n${r.stdout}`);
    cli(['report', '--root', run.root, '--format', 'html', '-o', path.join(path.dirname(summary), 'r.html')], { GITHUB_STEP_SUMMARY: summary });
    expect(fs.readFileSync(summary, 'utf8')).toBe(`# earlier step\n${r.stdout}`);
  });

  it('refuses an unknown format, two scopes, and a run with no events (with a hint)', () => {
    expect(cli(['report', '--root', run.root, '--format', 'pdf'])).toMatchObject({ status: 64, stderr: expect.stringContaining('--format md or --format html') });
    expect(cli(['report', '--root', run.root, '--all', '--run', run.runId]).status).toBe(64);
    expect(cli(['report', '--root', run.root, '--run', '20200101T000000Z-000000'])).toMatchObject({ status: 1, stderr: expect.stringContaining('editwarden log') });
  });

  it('an empty root reports no events', () => {
    const r = cli(['report', '--root', tempDir('ew-empty-')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('No events recorded.');
    expect(cli(['log', '--root', tempDir('ew-empty-')]).stdout).toBe('no events recorded\n');
  });
});

describe('a planted or corrupted log file is never followed nor shown, and never blinds log and report (skipped with a note)', () => {
  it('skips a symlinked events.jsonl and corrupted lines with a note on stderr, in log and report, and shows the rest', () => {
    const root = tempDir('ew-planted-');
    fs.mkdirSync(path.join(root, '.editwarden'));
    const planted = { v: 1, time: new Date().toISOString(), kind: 'refusal', route: { via: 'x' }, paths: [], tool: 't', code: 'E_PLANTED_SECRET', message: 'm', hint: 'h' };
    fs.writeFileSync(path.join(root, 'fake.jsonl'), `${JSON.stringify(planted)}\n`);
    fs.symlinkSync(path.join(root, 'fake.jsonl'), path.join(root, '.editwarden', 'events.jsonl'));
    for (const args of [['log'], ['log', '--json'], ['report'], ['report', '--format', 'html']]) {
      const r = cli([...args, '--root', root]);
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/note: .*events\.jsonl was not read: .*symlink/);
      expect(r.stdout).not.toContain('E_PLANTED_SECRET');
    }
    const corrupt = tempDir('ew-corrupt-');
    fs.mkdirSync(path.join(corrupt, '.editwarden'));
    fs.copyFileSync(path.join(run.root, '.editwarden', 'events.jsonl'), path.join(corrupt, '.editwarden', 'events.jsonl'));
    const good = cli(['log', '--root', corrupt]).stdout;
    fs.appendFileSync(path.join(corrupt, '.editwarden', 'events.jsonl'), 'garbage\n{"v":1,"kind":"edit"}\n');
    const r = cli(['log', '--root', corrupt]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(good);
    expect(r.stderr).toMatch(/line 7 is not an event editwarden wrote .*skipped/);
    expect(r.stderr).not.toContain('garbage');
  });
});
