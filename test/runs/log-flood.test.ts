/**
 * Log flood (issue 38.4, "Must show"): 100 commands, each creating 10,000
 * files (and deleting the 10,000 before them) under a deep folder. Before
 * the caps one such command wrote a ~35 MiB event and `editwarden log`
 * refused the whole log; three rotated an earlier `rm important.txt` out of
 * every kept generation. After: `log` and `report` work, every destructive
 * event of the run is listed, and the log's files stay within the bound
 * docs/report.md documents.
 *
 * The first REAL_COMMANDS go through the library's execute_command route
 * in-process (the built library, dist/) — the real ToolRunner, the real bubblewrap sandbox, the real
 * checkpoint of each command's effects and the real event log: they show
 * that the route's own events are capped. The rest are the same command
 * events (the route, checkpoint and counts of the last real one, each with
 * its whole uncut list of 20,000 paths) handed to the same writer the
 * runner uses (recordEvent): what floods the log is the events, and a real
 * sandboxed capture of 10,000 files costs 5-60 s a command on two cores,
 * which would make this one test longer than the rest of the suite.
 * `EW_FLOOD_REAL=100` runs every command for real.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { gitInit } from '../git-init.js';
import { tempDir } from '../temp-dirs.js';

const REPO = path.resolve(__dirname, '../..');
const BIN = path.join(REPO, 'bin', 'editwarden');

/**
 * The library as built: dist/ (test/global-setup.ts brings it up to date with src/ before any test file runs, as for
 * the binary), loaded by Node's own import, which vitest's module transform does not touch (native-import.cjs). This
 * end-to-end file runs in a worker of its own, and the ToolRunner's module graph cost ~2.5 s of CPU to load through
 * the transform, ~0.3 s natively. The types are the sources' own.
 */
const nativeImport = createRequire(import.meta.url)('../integrations/native-import.cjs') as (url: string) => Promise<unknown>;
const built = <T>(rel: string): Promise<T> => nativeImport(pathToFileURL(path.join(REPO, 'dist', rel)).href) as Promise<T>;
const { defaultConfig } = await built<typeof import('../../src/config/config.js')>('config/config.js');
const { ToolRunner } = await built<typeof import('../../src/tools/runner.js')>('tools/runner.js');
const { openWorkspace } = await built<typeof import('../../src/workspace/open.js')>('workspace/open.js');
const { readEvents } = await built<typeof import('../../src/runs/events-read.js')>('runs/events-read.js');
const { recordEvent } = await built<typeof import('../../src/runs/events.js')>('runs/events.js');
const COMMANDS = 100;
const REAL_COMMANDS = Math.min(COMMANDS, Number(process.env.EW_FLOOD_REAL ?? 3));
const FILES = 10_000;
/** A folder ~170 bytes deep: each path listed is long, as in the attack. */
const DEEP = Array.from({ length: 10 }, (_, i) => `folder-level-${i}-xxxx`).join('/');
/** The bound docs/report.md states for the log's files: 4 generations × (8 MiB + a line), the index 2 × 6 MiB, side files 32 MiB + one event's. */
const BOUND = 4 * (8 * 1024 * 1024 + 96 * 1024) + 2 * 6 * 1024 * 1024 + (32 + 16) * 1024 * 1024;

function logBytes(state: string): number {
  let n = 0;
  for (const name of fs.readdirSync(state)) if (/^events.*\.jsonl$/.test(name)) n += fs.statSync(path.join(state, name)).size;
  const diffs = path.join(state, 'events-diffs');
  if (fs.existsSync(diffs)) for (const name of fs.readdirSync(diffs)) n += fs.statSync(path.join(diffs, name)).size;
  return n;
}

describe('a flooded log keeps the evidence and stays bounded', () => {
  it(`${COMMANDS} commands each creating ${FILES} files: log and report work, every destructive event is listed, the log is bounded`, async () => {
    const root = fs.realpathSync(tempDir('ew-flood-'));
    fs.writeFileSync(path.join(root, 'important.txt'), 'the person’s notes\n');
    fs.writeFileSync(path.join(root, 'README.md'), '# demo\n');
    gitInit(root);
    const config = defaultConfig();
    config.constraints.max_files = 10_000_000;
    config.constraints.max_lines_changed = 10_000_000;
    config.constraints.timeout = 3600;
    const { ws, transactions } = openWorkspace(root);
    const runner = ToolRunner.start({ ws, config, transactions });
    const rm = await runner.call({ tool: 'execute_command', args: { command: 'rm important.txt' } });
    expect(rm.status).toBe('ok');
    const refused = await runner.call({ tool: 'edit_file', args: { path: 'README.md', old_text: 'no such text', new_text: 'x' } });
    expect(refused.ok).toBe(false);
    // Each command replaces the folder of the one before: 10,000 files deleted, 10,000 created.
    const flood = (i: number) => `rm -rf out && mkdir -p out/${i}/${DEEP} && cd out/${i}/${DEEP} && seq -f 'file-%05g.txt' ${FILES} | xargs touch`;
    for (let i = 0; i < REAL_COMMANDS; i++) {
      const r = await runner.call({ tool: 'execute_command', args: { command: flood(i) } });
      expect(r.status, r.output).toBe('ok');
    }
    const state = path.join(root, '.editwarden');
    const real = readEvents(state).events.filter((e) => e.kind === 'command');
    const last = real[real.length - 1];
    if (last?.kind !== 'command') throw new Error('no real command event to model the rest on');
    const files = (i: number) => Array.from({ length: FILES }, (_, n) => `out/${i}/${DEEP}/file-${String(n + 1).padStart(5, '0')}.txt`);
    // Each event's paths sorted, as the route lists them. Each folder's list is sorted already, and every path under
    // `out/<i-1>/` sorts before (or every one after) every path under `out/<i>/`, so joining the two in that order is
    // the sort (sorting 20,000 paths for each of the 97 events was ~0.8 s of this file's CPU).
    let before = files(REAL_COMMANDS - 1);
    for (let i = REAL_COMMANDS; i < COMMANDS; i++) {
      const now = files(i);
      const paths = `${i - 1}/` < `${i}/` ? [...before, ...now] : [...now, ...before];
      before = now;
      const error = recordEvent(state, { kind: 'command', tool: last.tool, command: flood(i), exit_code: 0, changes: last.changes, route: last.route, paths, ...(last.checkpoint ? { checkpoint: last.checkpoint } : {}) });
      expect(error).toBeNull();
    }
    // Last, an attempt on .git/config: a violation that ends the run.
    expect((await runner.call({ tool: 'write_file', args: { path: '.git/config', content: 'x\n' } })).status).toBe('refused');
    await runner.finish();
    const bytes = logBytes(state);
    expect(bytes).toBeLessThan(BOUND);

    const log = readEvents(state);
    expect(log.notes).toEqual([]);
    const commands = log.events.filter((e) => e.kind === 'command');
    expect(commands).toHaveLength(COMMANDS + 1);
    expect(commands[0]).toMatchObject({ command: 'rm important.txt', paths: ['important.txt'] });
    expect(commands[1]?.cut?.paths?.total).toBe(FILES);
    for (const c of commands.slice(2)) expect(c.cut?.paths?.total).toBe(2 * FILES);
    expect(log.events.some((e) => e.kind === 'refusal' && e.paths[0] === 'README.md')).toBe(true);
    expect(log.events.some((e) => e.kind === 'violation' && e.paths[0] === '.git/config')).toBe(true);

    const cli = (...args: string[]) => spawnSync(BIN, [...args, '--root', root], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const shown = cli('log');
    expect(shown.status, shown.stderr).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines.filter((l) => l.includes('$ rm important.txt'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('$ rm -rf out'))).toHaveLength(COMMANDS);
    expect(shown.stdout).toMatch(/refusal .*README\.md/);
    expect(shown.stdout).toMatch(/violation/);
    const md = cli('report', '--all');
    expect(md.status, md.stderr).toBe(0);
    expect(md.stdout).toContain('rm important.txt');
    expect(md.stdout.split('rm -rf out').length - 1).toBeGreaterThanOrEqual(COMMANDS);
    console.log(`flood: ${COMMANDS} commands × ${FILES} files → event log files ${(bytes / 1024 / 1024).toFixed(1)} MiB (bound ${(BOUND / 1024 / 1024).toFixed(0)} MiB), ${log.events.length} events`);
  }, 600_000);
});
