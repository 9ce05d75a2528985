/**
 * The report of a real Claude Code session (2.1.197, scripted model on
 * 127.0.0.1, in a temp project after `editwarden init claude`), read as a
 * person reads it: the HTML report loaded in headless Chromium and its
 * rendered DOM parsed. The session makes an Edit, a Bash `sed -i`, a Bash
 * `rm`, and a Bash attempt on `.git/config` the sandbox stops; then the
 * person runs `editwarden undo`. The report must say what is different now
 * first (file by file, with diffs), then the timeline: the sed's diff, the
 * undo as an event, the attempt marked with its output, and no token or
 * time rows (a client session has no such limits). After `exec --max-files 1`
 * the table and the headline agree on the limit the run had.
 *
 * Screenshots at 1280 px and 400 px are taken by the test that checks them:
 * into a temp folder, or — when EDITWARDEN_SCREENSHOTS names a folder (e.g.
 * `EDITWARDEN_SCREENSHOTS=docs`) — into that folder as report-1280.png and
 * report-400.png, the images docs/report.md shows. CI never sets it, so the
 * tree stays clean.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'parse5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, consoleLines } from '../report/chromium.js';
import { CLAUDE, cleanup, editwarden, project, runClaude, tempDir, toolResults } from './helpers.js';

beforeAll(() => {
  expect(fs.existsSync(CLAUDE), `${CLAUDE} is missing; run npm ci`).toBe(true);
});
afterAll(cleanup);

interface Node {
  nodeName: string;
  tagName?: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  value?: string;
  content?: Node;
}

const attr = (n: Node, name: string): string => n.attrs?.find((a) => a.name === name)?.value ?? '';
function all(root: Node, match: (n: Node) => boolean): Node[] {
  const out: Node[] = [];
  const walk = (n: Node): void => {
    if (match(n)) out.push(n);
    for (const c of n.content?.childNodes ?? n.childNodes ?? []) walk(c);
  };
  walk(root);
  return out;
}
function text(n: Node): string {
  if (n.nodeName === '#text') return n.value ?? '';
  return (n.content?.childNodes ?? n.childNodes ?? []).map(text).join('');
}
const byClass = (root: Node, tag: string, cls: string): Node[] => all(root, (n) => n.tagName === tag && attr(n, 'class').split(' ').includes(cls));

/** The PNG's size from its header (and that it is one). */
function pngSize(file: string): { width: number; height: number; bytes: number } {
  const png = fs.readFileSync(file);
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length };
}

/** Where screenshots go: the folder EDITWARDEN_SCREENSHOTS names (to commit them), else a temp folder. */
const shots = (): string => (process.env.EDITWARDEN_SCREENSHOTS ? path.resolve(process.env.EDITWARDEN_SCREENSHOTS) : tempDir('ew-shots-'));

describe('the report of a Claude Code session answers "what changed"', () => {
  it('net changes first, the sed diff, the undo an event, the attempt on .git/config marked with its output, no token or time rows; screenshots at 1280 and 400 px', async () => {
    const root = project({ 'notes.txt': 'colour one\nkeep\n', 'a.txt': 'alpha\n', 'old.txt': 'old file\n' });
    const gitConfig = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const init = editwarden(['init', 'claude', '--root', root]);
    expect(init.code, init.stderr).toBe(0);
    const run = await runClaude(
      root,
      [
        { name: 'Read', args: { file_path: path.join(root, 'a.txt') } },
        { name: 'Edit', args: { file_path: path.join(root, 'a.txt'), old_string: 'alpha', new_string: 'beta' } },
        { name: 'Bash', args: { command: "sed -i 's/colour/color/' notes.txt", description: 'spelling' } },
        { name: 'Bash', args: { command: 'rm old.txt', description: 'remove' } },
        { name: 'Bash', args: { command: "printf '[alias]\\n\\tx = !sh\\n' >> .git/config", description: 'alias' } },
      ],
      ['--allowedTools', 'Bash'],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(run.requests), run.stdout).toHaveLength(5);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('beta\n');
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(gitConfig);
    // The person takes back the last step (the rm).
    const undo = editwarden(['undo', '--root', root]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, 'old.txt'), 'utf8')).toBe('old file\n');

    const page = path.join(tempDir('ew-report-'), 'report.html');
    const made = editwarden(['report', '--root', root, '--format', 'html', '-o', page]);
    expect(made.code, made.stderr).toBe(0);
    // One browser start serves the DOM and the 1280 px screenshot checked below (the page's one script, which opens
    // folded diffs for printing, does not depend on the window's size).
    const dir = shots();
    const shot = (width: number): string => path.join(dir, `report-${width}.png`);
    const sizes = [
      [1280, 2100],
      [400, 2450],
    ] as const;
    const windowArgs = (width: number, height: number): string[] => [`--screenshot=${shot(width)}`, `--window-size=${width},${height}`, '--hide-scrollbars'];
    const loaded = chromium(page, ['--dump-dom', ...windowArgs(...sizes[0])]);
    expect(consoleLines(loaded.stderr)).toEqual([]);
    const dom = parse(loaded.stdout) as unknown as Node;

    // What changed comes first, then the timeline.
    expect(all(dom, (n) => n.tagName === 'h2').map(text)).toEqual(['What changed since the start of the session', 'Timeline']);
    const net = byClass(dom, 'ul', 'net')[0] as Node;
    const files = Object.fromEntries(all(net, (n) => n.tagName === 'li').map((li) => [text(all(li, (n) => n.tagName === 'code')[0] as Node), li]));
    expect(Object.keys(files).sort()).toEqual(['a.txt', 'notes.txt', 'old.txt']);
    expect(text(byClass(files['notes.txt'] as Node, 'span', 'st')[0] as Node)).toBe('modified');
    expect(byClass(files['notes.txt'] as Node, 'span', 'd').map(text)).toEqual(['-colour one']);
    expect(byClass(files['notes.txt'] as Node, 'span', 'a').map(text)).toEqual(['+color one']);
    expect(byClass(files['a.txt'] as Node, 'span', 'a').map(text)).toEqual(['+beta']);
    expect(text(files['old.txt'] as Node)).toContain('back as it was');

    // The timeline: each event a card.
    const cards = byClass(dom, 'li', 'ev');
    const card = (title: RegExp): Node => {
      const found = cards.filter((c) => title.test(text(byClass(c, 'div', 'head')[0] as Node)));
      expect(found, `one card titled ${title}`).toHaveLength(1);
      return found[0] as Node;
    };
    expect(byClass(card(/Edit a\.txt/), 'span', 'a').map(text)).toEqual(['+beta']);
    // A command's change has its diff, as an edit's has.
    const sed = card(/\$ sed -i/);
    expect(byClass(sed, 'span', 'a').map(text)).toEqual(['+color one']);
    expect(text(sed)).toMatch(/undo to here: editwarden undo --to \d{8}-\d{6}-\d{3}-[0-9a-f]{4}/);
    // The undo is an event of the session's report, and the rm's card says it was undone.
    const undone = card(/^#\d+undo/);
    expect(text(undone)).toContain('rm old.txt');
    expect(text(card(/\$ rm old\.txt/))).toMatch(/undone by #\d+/);
    // The attempt is marked, with the command's output; it does not read "changed nothing".
    const attempt = card(/attempt: \$ printf/);
    expect(attr(attempt, 'class')).toBe('ev attempt');
    expect(text(byClass(attempt, 'span', 'badge')[0] as Node)).toBe('stopped');
    expect(text(byClass(attempt, 'pre', 'out')[0] as Node)).toMatch(/\.git\/config: Read-only file system/);
    expect(text(attempt)).not.toContain('nothing');
    // A client session's limits are not tokens and time.
    expect(all(dom, (n) => n.tagName === 'th').map(text)).toEqual(['files changed', 'lines changed']);
    // Each id once per card: the step id in the undo command only, the session id in the title only.
    const session = /session (\S+)/.exec(text(all(dom, (n) => n.tagName === 'h1')[0] as Node))?.[1] as string;
    for (const c of cards) expect(text(c)).not.toContain(session);
    const step = /--to (\S+)/.exec(text(sed))?.[1] as string;
    expect(text(sed).split(step)).toHaveLength(2);

    // The log ends with the same headline.
    const headline = text(byClass(dom, 'div', 'outcome')[0] as Node);
    expect(editwarden(['log', '--root', root]).stdout.trim().split('\n').at(-1)).toBe(`session ${session}: ${headline}`);

    // "Undo to here" on the sed's card does what it says: the sed and everything after it undone, the Edit before it kept.
    const back = editwarden(['undo', '--root', root, '--to', step]);
    expect(back.code, back.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8')).toBe('colour one\nkeep\n');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('beta\n');

    for (const [width, height] of sizes) {
      if (width !== sizes[0][0]) chromium(page, windowArgs(width, height));
      const png = pngSize(shot(width));
      expect({ width: png.width, height: png.height }).toEqual({ width, height });
      // A blank page compresses to a few KB; a rendered report with coloured diffs does not.
      expect(png.bytes).toBeGreaterThan(30_000);
    }
  }, 240_000);
});

describe('after exec --max-files 1 the table and the headline agree', () => {
  it("both say the run's limit of 1, not the root's default of 10", () => {
    const root = project({ 'a.txt': 'a\n' });
    const calls = path.join(tempDir('ew-calls-'), 'calls.jsonl');
    fs.writeFileSync(
      calls,
      [
        { tool: 'write_file', args: { path: 'one.txt', content: '1\n' } },
        { tool: 'write_file', args: { path: 'two.txt', content: '2\n' } },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    const exec = editwarden(['exec', '--root', root, '--max-files', '1', '--json', calls]);
    expect(exec.code, exec.stderr).toBe(2);
    const page = path.join(tempDir('ew-report-'), 'report.html');
    expect(editwarden(['report', '--root', root, '--format', 'html', '-o', page]).code).toBe(0);
    const dom = parse(chromium(page, ['--dump-dom']).stdout) as unknown as Node;
    const rows = Object.fromEntries(all(dom, (n) => n.tagName === 'tr').map((tr) => [text(all(tr, (n) => n.tagName === 'th')[0] as Node), text(all(tr, (n) => n.tagName === 'td')[0] as Node)]));
    expect(rows['files changed']).toBe('1 / 1');
    expect(Object.keys(rows)).toEqual(['files changed', 'lines changed', 'tokens', 'time']);
    const headline = text(byClass(dom, 'div', 'outcome')[0] as Node);
    expect(headline).toContain('max_files reached 2, limit 1');
    expect(headline).toContain('files changed 1 / 1');
    const md = editwarden(['report', '--root', root]).stdout;
    expect(md).toContain('| files changed | 1 / 1 |');
    expect(md).toContain('max\\_files reached 2, limit 1');
    // The run's step is named by its checkpoint: "undo to here" takes back the run's write.
    const step = /undo --to (\S+)`/.exec(md)?.[1] as string;
    const back = editwarden(['undo', '--root', root, '--to', step]);
    expect(back.code, back.stderr).toBe(0);
    expect(fs.existsSync(path.join(root, 'one.txt'))).toBe(false);
  }, 120_000);
});
