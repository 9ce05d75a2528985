/**
 * The reports read by real renderers, with fuzzed text in every field the
 * log holds (paths, commands, codes, messages, hints, labels, outputs, diff
 * lines, an unknown kind): backtick and tilde runs, indentation, `<!--`,
 * `<img>`, `<script>`, link and image syntax, autolinks, NUL, CR, long lines.
 *
 * Markdown: rendered by micromark (CommonMark) and micromark + GFM (the
 * parser behind GitHub-compatible renderers) with raw HTML ALLOWED — so any
 * HTML the text smuggled would come out as an element — then parsed by
 * parse5 (the WHATWG HTML parser). HTML report: parsed by parse5.
 *
 * No escape in any case: every event is its own block (its own heading /
 * card, in order); the element skeleton — every element and attribute — is
 * the same whatever the text (the report's own structure, never the text's);
 * no comment, link, image or script the report did not write; and the text
 * is on the page as text.
 */
import fc from 'fast-check';
// micromark's production build, as a renderer runs it: vitest starts its workers with `--conditions development`, and
// micromark's package entry then gives its development build — the same parser with assertions and debug logging at
// every step, 2.5× the CPU (this file's cost). The built file is named, so the condition does not choose.
import { micromark } from '../../node_modules/micromark/index.js';
import { gfm, gfmHtml } from '../../node_modules/micromark-extension-gfm/index.js';
import { parse, parseFragment } from 'parse5';
import { describe, expect, it } from 'vitest';
import type { ReportInput, ReportItem } from '../../src/report/event-summary.js';
import { renderHtml } from '../../src/report/html.js';
import { mdFence, renderMarkdown } from '../../src/report/markdown.js';
import type { EditwardenEvent } from '../../src/runs/event-types.js';

const time = '2026-11-26T12:00:00.000Z';

/** One event of each kind (and a kind this version does not know), every text field holding `text`. */
function itemsOf(text: string): ReportItem[] {
  const route = { via: 'hook', client: text, session: 's-1' };
  const events = [
    { v: 1, time, route, kind: 'edit', tool: text, paths: [text], added: 1, removed: 1, checkpoint: text },
    { v: 1, time, route, kind: 'refusal', tool: text, paths: [text], code: text, message: text, hint: text },
    { v: 1, time, route, kind: 'command', tool: 'Bash', command: text, exit_code: 2, paths: [], changes: { added: 0, removed: 0 }, output: `${text}\nsh: 1: cannot create .git/config: Read-only file system` },
    { v: 1, time, route, kind: 'command', tool: 'Bash', command: text, exit_code: 0, paths: [text], changes: { added: 1, removed: 0 }, checkpoint: 'c2', code: text, message: text, artifacts: text },
    { v: 1, time, route, kind: 'violation', paths: [text], type: text, constraint: text, limit: [text], actual: text, message: text, hint: text, prevented: false, report: text },
    { v: 1, time, route: { via: 'cli' }, kind: 'undo', label: text, written: [text], removed: [text], paths: [text], undoes: ['c2'] },
    { v: 1, time, route, kind: 'checkpoint', label: text, paths: [] },
    // A kind a newer writer may add (e.g. a put-back): shown as what it is, its fields as text.
    { v: 1, time, route, kind: text === '' ? 'x' : text, paths: [text] },
    {
      v: 1,
      time,
      route: { via: text, run: 'r-1' },
      kind: 'run-end',
      paths: [],
      status: text,
      outcome: text,
      started_at: time,
      calls: 1,
      totals: { files: 1, lines_added: 1, lines_removed: 0, tokens: 5, elapsed_seconds: 1 },
      limits: { max_files: 1, max_lines_changed: 10, max_tokens: 0, timeout_seconds: 60 },
    },
  ] as unknown as EditwardenEvent[];
  const diff = `--- a/x\n+++ b/x\n@@ -1 +1 @@\n-${text}\n+${text}\n`;
  return events.map((event) => ({ event, diff: event.kind === 'edit' || (event.kind === 'command' && event.paths.length > 0) ? diff : null }));
}

function inputOf(text: string): ReportInput {
  return {
    scope: { kind: 'session', id: 's-1' },
    root: text,
    items: itemsOf(text),
    net: [
      { path: text, change: 'modified', added: 1, removed: 1, diff: `--- a/x\n+++ b/x\n@@ -1 +1 @@\n-${text}\n+${text}\n` },
      { path: text, change: 'unchanged', added: 0, removed: 0, diff: null },
    ],
    generatedAt: time,
    timeZone: 'Europe/Berlin',
  };
}

const EVENTS = itemsOf('x').length;

/** Text an agent or a repository can put in the log. */
const hostileText = fc.oneof(
  fc.string({ unit: 'grapheme-ascii' }),
  fc.string(),
  fc
    .array(
      fc.constantFrom(
        '`',
        '~',
        '```',
        '~~~~',
        '    ```',
        '   ```',
        '  `````',
        '   ~~~',
        '\n',
        '\r',
        '\r\n',
        ' ',
        '\t',
        '<!--',
        '-->',
        '<img src=x onerror=alert(1)>',
        '<script>alert(1)</script>',
        '[a](http://e.x)',
        '![i](http://e.x/i.png)',
        '<http://e.x>',
        'https://e.x',
        'www.e.x',
        'a@e.x',
        '\u0000',
        '# h',
        '- li',
        '1. li',
        '> q',
        '---',
        '===',
        '|a|b|',
        '~~s~~',
        '*e*',
        '_e_',
        '$x$',
        ':smile:',
        '[^1]',
        '[r]: http://e.x',
        '&lt;b&gt;',
        '&amp;',
        '\\',
        'x',
      ),
      { maxLength: 30 },
    )
    .map((parts) => parts.join('')),
  fc.string({ minLength: 1, maxLength: 3 }).map((s) => s.repeat(300)),
);

/** Empty text is no escape, but it leaves out what it would fill (an empty code has no line): the skeleton tests give some. */
const nonEmpty = hostileText.filter((t) => t !== '');

interface Node {
  nodeName: string;
  tagName?: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  value?: string;
  data?: string;
  content?: Node;
}

function walk(node: Node, visit: (n: Node, inDiff: boolean) => void, inDiff = false): void {
  visit(node, inDiff);
  const diff = inDiff || (node.tagName === 'pre' && node.attrs?.some((a) => a.name === 'class' && a.value === 'diff') === true);
  for (const child of node.content?.childNodes ?? node.childNodes ?? []) walk(child, visit, diff);
}

/** Every element with its attributes, in document order (the lines of an HTML diff, one span each, counted apart). */
function skeleton(root: Node): string[] {
  const out: string[] = [];
  walk(root, (n, inDiff) => {
    if (n.nodeName === '#comment') out.push(`<!--${n.data}-->`);
    // `open` on a diff's fold says how long the diff is, not what it holds.
    if (n.tagName && !inDiff)
      out.push(
        `<${n.tagName}${(n.attrs ?? [])
          .filter((a) => a.name !== 'open')
          .map((a) => ` ${a.name}="${a.value}"`)
          .join('')}>`,
      );
  });
  return out;
}

function textOf(root: Node): string {
  let text = '';
  walk(root, (n) => {
    if (n.nodeName === '#text') text += n.value ?? '';
  });
  return text;
}

function elements(root: Node, tag: string): Node[] {
  const out: Node[] = [];
  walk(root, (n) => {
    if (n.tagName === tag) out.push(n);
  });
  return out;
}

const commonmark = (md: string): Node => parseFragment(micromark(md, { allowDangerousHtml: true, allowDangerousProtocol: true })) as unknown as Node;
const githubFlavoured = (md: string): Node => parseFragment(micromark(md, { allowDangerousHtml: true, allowDangerousProtocol: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] })) as unknown as Node;

/** What a line of text from the log looks like once on the page: line breaks as spaces, NUL as U+FFFD. */
const shownAs = (text: string): string => text.replace(/\r\n|[\r\n\u2028\u2029\v\f]/g, ' ').replace(/\0/g, '\uFFFD');

describe('the Markdown report through micromark (CommonMark) and micromark + GFM, raw HTML allowed', () => {
  const benign = renderMarkdown(inputOf('x'));
  for (const [name, render] of [
    ['CommonMark', commonmark],
    ['GFM', githubFlavoured],
  ] as const) {
    const expected = skeleton(render(benign));

    it(`${name}: whatever the text, the same elements and attributes as with plain text; each event its own heading, in order`, () => {
      // The report's own structure: what any text must leave exactly as it is.
      expect(expected.filter((t) => t.startsWith('<h3'))).toHaveLength(EVENTS + 2);
      expect(expected.some((t) => /^<(a|img|script|del|input|sup|section|em|br|hr|blockquote)\b/.test(t))).toBe(false);
      fc.assert(
        fc.property(nonEmpty, (text) => {
          const md = renderMarkdown(inputOf(text));
          const tree = render(md);
          expect(skeleton(tree)).toEqual(expected);
          const headings = elements(tree, 'h3').map(textOf);
          expect(headings.slice(2).map((h) => h.slice(0, h.indexOf('.')))).toEqual(Array.from({ length: EVENTS }, (_, i) => String(i + 1)));
        }),
        { numRuns: 40 },
      );
    });

    it(`${name}: the text is on the page as text (quoted, not interpreted)`, () => {
      fc.assert(
        fc.property(
          hostileText.filter((t) => t.trim() !== '' && t.length < 2000),
          (text) => {
            const shown = textOf(render(renderMarkdown(inputOf(text))));
            // Each line of the text, as it appears in a diff fence, and flattened as it appears in prose and code.
            for (const line of text.replace(/\0/g, '\uFFFD').split(/\r\n|\r|\n/)) expect(shown).toContain(line);
            expect(shown).toContain(shownAs(text).trim());
          },
        ),
        { numRuns: 40 },
      );
    });
  }

  it('a fence is longer than any run of its character anywhere inside, indented or not, and uses the rarer one', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const fenced = mdFence(text);
        const open = /^(`{3,}|~{3,})/.exec(fenced)?.[1] as string;
        const runs = [...fenced.slice(open.length, fenced.length - open.length).matchAll(open[0] === '`' ? /`+/g : /~+/g)].map((m) => m[0].length);
        expect(Math.max(0, ...runs)).toBeLessThan(open.length);
        const tree = commonmark(fenced);
        expect(skeleton(tree).filter((t) => t.startsWith('<pre'))).toHaveLength(1);
        expect(textOf(tree).replace(/\n$/, '')).toBe(
          text
            .replace(/\0/g, '\uFFFD')
            .replace(/\r\n|\r/g, '\n')
            .replace(/\n$/, ''),
        );
      }),
      // A body ending in a lone \r once lost a line to the closing fence's \n (seed -189442367).
      { numRuns: 300, examples: [['\r\r\n'], ['a\r']] },
    );
  });

  it('the check can fail: a fence sized by column-0 runs only is broken out of by an indented one (issue 38.3)', () => {
    const diffLine = '   ````\n<img src="https://e.x/pixel.png">\n<!--';
    const naive = `\`\`\`\`diff\n${diffLine}\n\`\`\`\`\n\n### 2. next event`;
    const tree = commonmark(naive);
    expect(skeleton(tree).some((t) => t.startsWith('<img'))).toBe(true);
    expect(elements(tree, 'h3')).toHaveLength(0);
    expect(skeleton(commonmark(mdFence(diffLine))).some((t) => t.startsWith('<img'))).toBe(false);
  });
});

describe('the Markdown and the HTML carry the same facts', () => {
  /** The literals (paths, commands, codes, undo commands) a page shows as inline code, in order: code outside any pre. */
  const inlineCodes = (root: Node): string[] => {
    const inPre = new Set(elements(root, 'pre').flatMap((p) => elements(p, 'code')));
    return elements(root, 'code')
      .filter((c) => !inPre.has(c))
      .map(textOf);
  };
  /** The blocks of a page: diffs and outputs, as text without blank space (a diff line is a span in HTML, a line in Markdown). */
  const blocks = (root: Node, isDiff: (pre: Node) => boolean): { diffs: string; outputs: string } => {
    const pres = elements(root, 'pre');
    const flat = (list: Node[]): string => list.map(textOf).join('').replace(/\s+/g, '');
    return { diffs: flat(pres.filter(isDiff)), outputs: flat(pres.filter((p) => !isDiff(p))) };
  };
  it('every literal of one is a literal of the other, in the same order; every diff line and output line is in both', () => {
    fc.assert(
      fc.property(
        nonEmpty.filter((t) => t.length < 500),
        (text) => {
          const md = githubFlavoured(renderMarkdown(inputOf(text)));
          const html = parse(renderHtml(inputOf(text))) as unknown as Node;
          expect(inlineCodes(md).map(shownAs)).toEqual(inlineCodes(html).map(shownAs));
          const mdBlocks = blocks(md, (pre) => elements(pre, 'code').some((c) => (c.attrs ?? []).some((a) => a.value === 'language-diff')));
          const htmlBlocks = blocks(html, (pre) => (pre.attrs ?? []).some((a) => a.name === 'class' && a.value === 'diff'));
          expect(mdBlocks).toEqual(htmlBlocks);
        },
      ),
      { numRuns: 40 },
    );
  });
});

const OWN_TAGS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'main', 'h1', 'h2', 'div', 'code', 'table', 'tbody', 'tr', 'th', 'td', 'a', 'ol', 'ul', 'li', 'span', 'details', 'summary', 'pre', 'p', 'script']);

describe('the HTML report through parse5 (the WHATWG HTML parser)', () => {
  const expected = skeleton(parse(renderHtml(inputOf('x'))) as unknown as Node);

  it('whatever the text: the same elements and attributes as with plain text, one card per event in order, its own one script', () => {
    expect(expected.filter((t) => t.startsWith('<li class="ev '))).toHaveLength(EVENTS);
    for (const t of expected) expect(OWN_TAGS.has((/^<([a-z0-9]+)/.exec(t) as RegExpExecArray)[1] as string), t).toBe(true);
    fc.assert(
      fc.property(nonEmpty, (text) => {
        const tree = parse(renderHtml(inputOf(text))) as unknown as Node;
        expect(skeleton(tree)).toEqual(expected);
        const cards = elements(tree, 'li').filter((li) => li.attrs?.some((a) => a.name === 'class' && a.value.startsWith('ev ')));
        expect(cards.map((li) => li.attrs?.find((a) => a.name === 'id')?.value)).toEqual(Array.from({ length: EVENTS }, (_, i) => `e${i + 1}`));
        // Diff lines are spans of the report's own classes, nothing else.
        walk(tree, (n, inDiff) => {
          if (inDiff && n.tagName) expect(n.tagName === 'span' && (n.attrs ?? []).every((a) => a.name === 'class' && ['a', 'd', 'h', 'f'].includes(a.value))).toBe(true);
        });
      }),
      { numRuns: 40 },
    );
  });

  it('the text is on the page as text', () => {
    fc.assert(
      fc.property(
        hostileText.filter((t) => t.trim() !== '' && t.length < 2000),
        (text) => {
          const shown = textOf(parse(renderHtml(inputOf(text))) as unknown as Node);
          // The WHATWG parser turns CR and CRLF into LF and NUL into U+FFFD (or drops it in text).
          for (const line of text.replace(/\r\n?/g, '\n').split('\n')) expect(shown.replace(/\uFFFD/g, '\0').replace(/\0/g, '')).toContain(line.replace(/\0/g, ''));
        },
      ),
      { numRuns: 40 },
    );
  });
});
