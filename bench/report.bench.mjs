// `editwarden report --format html` of a 1,000-event session, through the CLI
// (what a person or the GitHub Action waits for): 600 edits with 20-line
// diffs, 200 refusals, 150 commands, 40 violations, 10 undos, read from a
// real events.jsonl. Goal: ≤ 1 s wall. Next to it: `editwarden --version` (the
// CLI's start-up, the floor of any command) and the in-process read + render.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appendEvent } from '../dist/runs/events.js';
import { readEventDiff, readEvents } from '../dist/runs/events-read.js';
import { renderHtml } from '../dist/report/html.js';
import { median } from './stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '..', 'bin', 'editwarden');
const N = Number(process.env.EW_BENCH_REPORT_N ?? 7);

function session(root) {
  const stateDir = path.join(root, '.editwarden');
  const route = { via: 'hook', client: 'claude', session: 'bench-session' };
  for (let i = 0; i < 1000; i++) {
    const file = `src/module${i % 40}/file${i}.ts`;
    if (i % 100 < 60) {
      const lines = Array.from({ length: 8 }, (_, k) => ` const v${k} = ${k};`);
      const diff = `--- a/${file}\n+++ b/${file}\n@@ -1,10 +1,12 @@\n${lines.slice(0, 4).join('\n')}\n-old line ${i} <tag>\n+new line ${i} <tag>\n+another ${i}\n+third ${i}\n${lines.slice(4).join('\n')}\n`;
      appendEvent(stateDir, { kind: 'edit', route, tool: 'Edit', paths: [file], added: 3, removed: 1, diff, checkpoint: `20261126-120000-${String(i % 1000).padStart(3, '0')}-abcd` });
    } else if (i % 100 < 80) {
      appendEvent(stateDir, {
        kind: 'refusal',
        route,
        tool: 'Write',
        paths: [file],
        code: 'E_DRAMATIC_REDUCTION',
        message: `Writing ${file} would remove 40 of its 42 lines.`,
        hint: 'Edit the lines that change instead of rewriting the file.',
      });
    } else if (i % 100 < 95) {
      appendEvent(stateDir, { kind: 'command', route, tool: 'Bash', command: `npm test -- ${file}`, exit_code: i % 3 === 0 ? 1 : 0, paths: [file], changes: { added: 2, removed: 0 } });
    } else if (i % 100 < 99) {
      appendEvent(stateDir, { kind: 'violation', route, paths: [file], type: 'FileModification', constraint: 'max_files', limit: 10, actual: 11, message: 'over the limit', hint: 'split the task', prevented: true });
    } else {
      appendEvent(stateDir, { kind: 'undo', route: { via: 'cli' }, label: 'claude Edit', written: [file], removed: [], paths: [file] });
    }
  }
  return stateDir;
}

function timeIt(args, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export async function run() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ew-bench-report-')));
  try {
    const stateDir = session(root);
    const out = path.join(root, 'report.html');
    const cli = [];
    const floor = [];
    const inProcess = [];
    for (let i = 0; i < N; i++) {
      floor.push(timeIt(['--version'], root));
      cli.push(timeIt(['report', '--root', root, '--all', '--format', 'html', '-o', out], root));
      const t0 = process.hrtime.bigint();
      const log = readEvents(stateDir);
      const items = log.events.map((event) => ({ event, diff: event.kind === 'edit' || event.kind === 'command' ? readEventDiff(stateDir, event) : null }));
      renderHtml({ scope: { kind: 'all' }, root, items, net: [], generatedAt: new Date().toISOString(), timeZone: 'UTC' });
      inProcess.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const wall = median(cli);
    const html = fs.statSync(out).size;
    return [
      {
        case: 'report --format html, 1,000-event session (CLI, wall)',
        value: `${wall.toFixed(0)} ms`,
        baseline: `--version ${median(floor).toFixed(0)} ms; read + render in process ${median(inProcess).toFixed(0)} ms`,
        ratio: `${(wall / 1000).toFixed(2)} of goal`,
        goal: '≤ 1 s',
        met: wall <= 1000 ? 'yes' : 'no',
        note: `median of ${N}; ${(html / 1024).toFixed(0)} KiB of HTML, events.jsonl ${(fs.statSync(path.join(stateDir, 'events.jsonl')).size / 1024).toFixed(0)} KiB`,
      },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.table(await run());
