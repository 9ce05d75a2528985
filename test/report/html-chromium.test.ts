/**
 * The HTML report in a real browser: headless Chromium (Debian's `chromium`;
 * `.ci/run` installs it) loads the page of a real scripted run with no
 * console message at all (an error, a blocked resource or a script the
 * report did not write would each log one), renders the refusal codes and
 * diff lines as text — the `<script>` in a diff line and in a file name
 * stays text — and takes a phone-width screenshot of a sane size. A missing
 * browser fails the test: it is never skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dirs.js';
import { chromium, consoleLines, findChromium } from './chromium.js';
import { cli, SCRIPTED, scriptedRun } from './scripted-run.js';

let page: string;
let shot: string;
/**
 * The report loaded once, as a phone would: its DOM dumped and its screenshot taken by one browser run (one page
 * load); the tests below read what that run logged, rendered and drew.
 */
let loaded: { stdout: string; stderr: string } | undefined;
const load = (): { stdout: string; stderr: string } => {
  loaded ??= chromium(page, ['--dump-dom', `--screenshot=${shot}`, '--window-size=412,1600', '--hide-scrollbars']);
  return loaded;
};
beforeAll(() => {
  const { root } = scriptedRun();
  page = path.join(tempDir('ew-html-'), 'report.html');
  shot = path.join(path.dirname(page), 'report.png');
  const r = cli(['report', '--root', root, '--format', 'html', '-o', page]);
  if (r.status !== 0) throw new Error(r.stderr);
}, 60_000);

describe('the HTML report in headless Chromium', () => {
  it('finds the browser or fails with how to install it', () => {
    expect(findChromium()).toBeTruthy();
  });

  it('loads with no console message and renders the codes and diff lines as text (the <script> in them runs nothing)', () => {
    const { stdout, stderr } = load();
    expect(consoleLines(stderr)).toEqual([]);
    // The rendered DOM: text from the log is still escaped text, never an element.
    expect(stdout).toContain(SCRIPTED.refusalCode);
    expect(stdout).toContain('E_CONSTRAINT</code> FileModification');
    expect(stdout).toContain('+hi &lt;/pre&gt;&lt;script&gt;alert("diff")&lt;/script&gt;');
    expect(stdout).toContain('&lt;script&gt;x.txt');
    expect(stdout).toContain('$ echo made &gt; c.txt; exit 3');
    expect(stdout.match(/<script>/g)).toHaveLength(1);
    expect(stdout).toContain('class="a"');
  }, 120_000);

  it('a page whose script fails is caught by the same check (the check can fail)', () => {
    const bad = path.join(path.dirname(page), 'bad.html');
    fs.writeFileSync(bad, fs.readFileSync(page, 'utf8').replace('</body>', '<script>notDefined()</script></body>'));
    expect(consoleLines(chromium(bad, ['--dump-dom']).stderr).join('\n')).toContain('notDefined');
  }, 120_000);

  it('takes a phone-width screenshot: a PNG of the asked size with real content', () => {
    load();
    const png = fs.readFileSync(shot);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual({ width: 412, height: 1600 });
    // A blank page compresses to a few KB; a rendered report with coloured diffs does not.
    expect(png.length).toBeGreaterThan(30_000);
  }, 120_000);
});
