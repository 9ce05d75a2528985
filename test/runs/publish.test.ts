/**
 * `publishRecords` (runs/publish.ts): what editwarden wrote, copied through
 * its validated readers; nothing planted, linked or outside the state
 * folder's runs/ ever reaches the artifact.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendEvent, type NewEvent } from '../../src/runs/events.js';
import { publishRecords } from '../../src/runs/publish.js';
import { tempDir } from '../temp-dirs.js';

const RUN = '20261129T010000Z-abcdef';

function project(): { root: string; state: string } {
  const root = fs.realpathSync(tempDir('ew-publish-'));
  const state = path.join(root, '.editwarden');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'TOP-SECRET\n');
  return { root, state };
}

const command = (artifacts: string): NewEvent => ({
  kind: 'command',
  route: { via: 'exec', run: RUN },
  tool: 'execute_command',
  command: 'make',
  exit_code: 1,
  paths: [],
  changes: { added: 0, removed: 0 },
  artifacts,
});

function allFiles(dir: string, rel = ''): string[] {
  return fs.readdirSync(path.join(dir, rel)).flatMap((name) => {
    const r = path.join(rel, name);
    return fs.lstatSync(path.join(dir, r)).isDirectory() ? allFiles(dir, r) : [r];
  });
}

describe('publish copies what editwarden wrote, nothing else', () => {
  it('copies the events (written anew), the run records and the logs an event names; counts refusals and violations', () => {
    const { root, state } = project();
    appendEvent(state, command(path.join(root, '.editwarden', 'runs', RUN, 'commands', '1')));
    appendEvent(state, { kind: 'refusal', route: { via: 'exec', run: RUN }, tool: 'edit_file', paths: ['a'], code: 'E_NOT_FOUND', message: 'm', hint: 'h' });
    fs.mkdirSync(path.join(state, 'runs', RUN, 'commands', '1'), { recursive: true });
    fs.writeFileSync(path.join(state, 'runs', RUN, 'metrics.json'), '{}\n');
    fs.writeFileSync(path.join(state, 'runs', RUN, 'commands', '1', 'combined.log'), 'output\n');
    fs.mkdirSync(path.join(state, 'checkpoints'));
    fs.writeFileSync(path.join(state, 'checkpoints', 'x.json'), '{}');
    const out = path.join(root, '..', `${path.basename(root)}-out`);
    const r = publishRecords({ root, out });
    expect(r).toMatchObject({ events: 2, refusals: 1, violations: 0, left_out: [] });
    expect(allFiles(out).sort()).toEqual(['state/events.jsonl', `state/runs/${RUN}/commands/1/combined.log`, `state/runs/${RUN}/metrics.json`]);
    expect(
      fs
        .readFileSync(path.join(out, 'state', 'events.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(2);
    fs.rmSync(out, { recursive: true });
  });

  it('leaves out links, hard links, FIFOs, oversized and older files, each with its reason', () => {
    const { root, state } = project();
    appendEvent(state, command(`.editwarden/runs/${RUN}/commands/1`));
    const run = path.join(state, 'runs', RUN);
    fs.mkdirSync(path.join(run, 'commands', '1'), { recursive: true });
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(run, 'metrics.json'));
    fs.linkSync(path.join(root, 'secret.txt'), path.join(run, 'summary.md'));
    fs.writeFileSync(path.join(run, 'old.md'), 'old\n');
    fs.utimesSync(path.join(run, 'old.md'), new Date(2000, 0, 1), new Date(2000, 0, 1));
    fs.writeFileSync(path.join(run, 'big.md'), '');
    fs.truncateSync(path.join(run, 'big.md'), 64 * 1024 * 1024);
    const fifo = path.join(run, 'commands', '1', 'stdout.log');
    fs.rmSync(fifo, { force: true });
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // The commands folder itself swapped for a link to the root.
    fs.symlinkSync(root, path.join(run, 'commands', '2'));
    const out = path.join(root, 'artifact');
    const r = publishRecords({ root, out, since: new Date(Date.now() - 60_000) });
    const why = Object.fromEntries(r.left_out.map((l) => [l.path, l.why]));
    expect(why).toMatchObject({
      [`runs/${RUN}/metrics.json`]: 'a symlink',
      [`runs/${RUN}/summary.md`]: 'a hard link (2 names)',
      [`runs/${RUN}/old.md`]: 'written before this run',
      [`runs/${RUN}/big.md`]: expect.stringContaining('over the'),
      [`runs/${RUN}/commands/1/stdout.log`]: 'not a regular file',
    });
    expect(allFiles(out)).toEqual(['state/events.jsonl']);
    for (const f of allFiles(out)) expect(fs.readFileSync(path.join(out, f), 'utf8')).not.toContain('TOP-SECRET');
  });

  it('an event naming any path publishes only files under the state folder’s runs/ (property)', () => {
    const { root, state } = project();
    fs.mkdirSync(path.join(state, 'runs', RUN), { recursive: true });
    fs.writeFileSync(path.join(state, 'runs', RUN, 'x.md'), 'x\n');
    fs.mkdirSync(path.join(state, 'journal'));
    fs.writeFileSync(path.join(state, 'journal', 'j.md'), 'j\n');
    let n = 0;
    const segment = fc.constantFrom('..', '.', 'runs', RUN, '.editwarden', 'journal', 'x.md', 'j.md', 'secret.txt', '', '/', root);
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (parts) => {
        fs.rmSync(path.join(state, 'events.jsonl'), { force: true });
        appendEvent(state, { ...command(parts.join('/')), route: { via: 'x' } });
        const out = path.join(root, `out-${n++}`);
        const r = publishRecords({ root, out });
        for (const f of r.files) expect(f === 'state/events.jsonl' || f.startsWith('state/runs/')).toBe(true);
        for (const f of allFiles(out)) expect(fs.readFileSync(path.join(out, f), 'utf8')).not.toMatch(/TOP-SECRET|^j$/m);
        fs.rmSync(out, { recursive: true });
      }),
      { numRuns: 80 },
    );
  });
});
