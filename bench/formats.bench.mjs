// Parse + apply of a 1 MB model reply holding 200 edits, in each format that
// can say it: active edit (200 directives: append/prepend/replace over 20
// files), unified diff (200 hunks over 20 files) and apply_patch (200 chunks).
// Baselines measured in the same run: for parsing, splitting the reply into
// lines (a lower bound for any line parser); for the udiff apply, `git apply`
// of the same diff on the same files (a process, so it includes start-up).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { openWorkspace } from '../dist/workspace/open.js';
import { parseEdits, renderChange } from '../dist/formats/index.js';
import { applyReply } from '../dist/apply/apply-reply.js';
import { median, timeIt, ms, ratio } from './stats.mjs';

const FILES = 20;
const EDITS = 200;

function sourceFile(f, lines) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(`  const v${f}_${i} = compute(${i}, "a line of realistic length for a source file");`);
  return out.join('\n') + '\n';
}

/** 20 files of ~48 KB; 10 hunks per file, each changing one line. */
function changes() {
  const list = [];
  for (let f = 0; f < FILES; f++) {
    const before = sourceFile(f, 600);
    const lines = before.split('\n');
    for (let h = 0; h < EDITS / FILES; h++) {
      const at = 20 + h * 55;
      lines[at] = lines[at].replace('compute', 'recompute');
    }
    list.push({ path: `src/f${f}.ts`, before, after: lines.join('\n') });
  }
  return list;
}

function activeEditReply() {
  // 200 directives, ~5 KB of code each: ≈ 1 MB.
  const parts = [];
  const block = sourceFile(99, 60);
  for (let i = 0; i < EDITS; i++) {
    const action = i % 3 === 0 ? 'append' : i % 3 === 1 ? 'prepend' : 'append';
    parts.push(`Directive ${i}:`, '---BEGIN---', `Edit: src/f${i % FILES}.ts`, `action: ${action}`, '---START---', block.trimEnd(), '---END---', '');
  }
  return parts.join('\n');
}

function setUp(list) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-formats-'));
  fs.mkdirSync(path.join(root, 'src'));
  for (const c of list) fs.writeFileSync(path.join(root, c.path), c.before);
  return root;
}

async function timeApply(list, reply, format, iterations) {
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const root = setUp(list);
    const t0 = process.hrtime.bigint();
    const outcome = await applyReply(openWorkspace(root).ws, reply, { format, edit: { dramaticMinLines: Number.POSITIVE_INFINITY } });
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (!outcome.ok) throw new Error(`${format}: ${JSON.stringify(outcome.results.find((r) => r.error)?.error)}`);
    fs.rmSync(root, { recursive: true, force: true });
  }
  return samples;
}

export async function run() {
  const rows = [];
  const list = changes();
  const replies = {
    'active-edit': activeEditReply(),
    udiff: renderChange('udiff', list),
    'apply-patch': renderChange('apply-patch', list),
  };
  // The diffs are small (one line per hunk); pad them with prose to 1 MB so every format parses the same size.
  for (const f of ['udiff', 'apply-patch']) {
    const pad = 'Explanation of the change, which the parser must skip. '.repeat(18) + '\n';
    replies[f] = pad.repeat(Math.ceil((1_000_000 - replies[f].length) / pad.length)) + replies[f];
  }
  for (const [format, reply] of Object.entries(replies)) {
    const size = `${(reply.length / 1e6).toFixed(2)} MB`;
    const parsed = parseEdits(reply, format);
    if (parsed.errors.length > 0 || parsed.requests.length !== (format === 'active-edit' ? EDITS : FILES)) throw new Error(`${format}: parse failed`);
    const hunks = format === 'active-edit' ? EDITS : parsed.requests.reduce((n, r) => n + r.hunks.length, 0);
    const parse = timeIt(() => parseEdits(reply, format), 15);
    const floor = timeIt(() => reply.split('\n').length, 15);
    rows.push({ case: `${format}: parse ${size}, ${hunks} edits`, value: ms(median(parse)), baseline: ms(median(floor)), ratio: ratio(median(parse), median(floor)), goal: '< 50 ms', note: 'baseline: split into lines' });
    const apply = await timeApply(list, reply, format, 5);
    rows.push({ case: `${format}: parse + apply to ${FILES} files`, value: ms(median(apply)), goal: '< 500 ms', note: 'in process: sandbox, read, plan, diff, atomic writes' });
  }
  // git apply of the same unified diff, same files.
  const git = [];
  const diffFile = path.join(os.tmpdir(), `ew-bench-${process.pid}.diff`);
  fs.writeFileSync(diffFile, renderChange('udiff', list));
  for (let i = 0; i < 5; i++) {
    const root = setUp(list);
    const t0 = process.hrtime.bigint();
    const r = spawnSync('git', ['apply', diffFile], { cwd: root });
    git.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`git apply failed: ${r.stderr}`);
    fs.rmSync(root, { recursive: true, force: true });
  }
  fs.rmSync(diffFile, { force: true });
  const udiffRow = rows.find((r) => r.case.startsWith('udiff: parse + apply'));
  udiffRow.baseline = ms(median(git));
  udiffRow.ratio = ratio(Number.parseFloat(udiffRow.value), median(git));
  udiffRow.note += '; baseline: git apply (a process)';
  return rows;
}
