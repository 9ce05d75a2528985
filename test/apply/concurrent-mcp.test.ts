/**
 * Two real MCP stdio sessions (the SDK client against two `editwarden mcp`
 * processes) editing one file at once, and write_file, `apply` and
 * checkpoint_restore racing edits: nothing reported applied is lost.
 *
 * The three races share one project and three server processes (each race on a file of its own), so the file starts
 * three servers rather than seven; every race still runs between distinct sessions of distinct processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connect, tempRoot, type Connected } from '../mcp/helpers/server.js';
import { cli } from './helpers.js';

const slot = (w: string, j: number) => `${w}_${j} = 0`;
const done = (w: string, j: number) => `${w}_${j} = 1`;
/** The lines a race's file starts with: `edits` open slots for each of `workers`. */
const slots = (workers: string[], edits: number): string => workers.flatMap((w) => Array.from({ length: edits }, (_, j) => slot(w, j))).join('\n') + '\n';

const TWO_SESSIONS = { file: 'two-sessions.txt', edits: 20 };
const WRITE_RACE = { file: 'write-race.txt', edits: 8 };
const RESTORE_RACE = { file: 'restore-race.txt', edits: 10 };

let root: string;
let a: Connected;
let b: Connected;
let c: Connected;
beforeAll(async () => {
  root = tempRoot({
    [TWO_SESSIONS.file]: slots(['a', 'b'], TWO_SESSIONS.edits),
    [WRITE_RACE.file]: slots(['w', 'e', 'p'], WRITE_RACE.edits),
    [RESTORE_RACE.file]: slots(['a', 'b'], RESTORE_RACE.edits),
  });
  [a, b, c] = await Promise.all([connect(['--root', root]), connect(['--root', root]), connect(['--root', root])]);
}, 60_000);
afterAll(async () => {
  for (const s of [a, b, c]) await s?.close().catch(() => undefined);
});

describe('two MCP sessions editing one file', () => {
  it('every edit_file reported applied by either session is in the final file', async () => {
    const { file, edits: EDITS } = TWO_SESSIONS;
    const applied: string[] = [];
    await Promise.all(
      (
        [
          ['a', a],
          ['b', b],
        ] as const
      ).map(async ([w, s]) => {
        for (let j = 0; j < EDITS; j++) {
          const r = await call(s.client, 'edit_file', { path: file, old_text: slot(w, j), new_text: done(w, j) });
          if (!r.isError) applied.push(done(w, j));
          else expect.soft(r.text).toBe('applied');
        }
      }),
    );
    const final = fs.readFileSync(path.join(root, file), 'utf8');
    expect(applied.length).toBe(2 * EDITS);
    expect(applied.filter((l) => !final.includes(l))).toEqual([]);
  }, 120_000);

  it('write_file with expected_hash (read, change, write back) racing edit_file and `apply` loses nothing', async () => {
    const { file, edits: EDITS } = WRITE_RACE;
    const [writer, editor] = [a, b];
    const applied: string[] = [];
    const writes = (async () => {
      for (let j = 0; j < EDITS; j++) {
        for (let attempt = 0; attempt < 20; attempt++) {
          const text = fs.readFileSync(path.join(root, file), 'utf8');
          const hash = createHash('sha256').update(text).digest('hex');
          const r = await call(writer.client, 'write_file', { path: file, content: text.replace(slot('w', j), done('w', j)), overwrite: true, expected_hash: hash });
          if (!r.isError) {
            applied.push(done('w', j));
            break;
          }
          expect(r.error?.code).toBe('E_STALE');
        }
      }
    })();
    const edits = (async () => {
      for (let j = 0; j < EDITS; j++) {
        const r = await call(editor.client, 'edit_file', { path: file, old_text: slot('e', j), new_text: done('e', j) });
        if (!r.isError) applied.push(done('e', j));
      }
    })();
    const patches = (async () => {
      for (let j = 0; j < EDITS; j++) {
        const reply = `${file}\n<<<<<<< SEARCH\n${slot('p', j)}\n=======\n${done('p', j)}\n>>>>>>> REPLACE\n`;
        const replyFile = path.join(root, `.reply-${j}.txt`);
        fs.writeFileSync(replyFile, reply);
        const r = await cli(['apply', replyFile, '--json', '--root', root], root);
        fs.rmSync(replyFile);
        if (r.code === 0) applied.push(done('p', j));
      }
    })();
    await Promise.all([writes, edits, patches]);
    const final = fs.readFileSync(path.join(root, file), 'utf8');
    expect(applied.length).toBe(3 * EDITS);
    expect(applied.filter((l) => !final.includes(l))).toEqual([]);
  }, 120_000);

  it('checkpoint_restore racing edits from two sessions: every applied edit is in the final file or in the safety checkpoint of a later restore', async () => {
    const { file, edits: EDITS } = RESTORE_RACE;
    const restorer = c;
    const cp = await call(restorer.client, 'checkpoint_create', { name: 'start', paths: [file] });
    const id = (cp.structured.data as { id: string } | undefined)?.id ?? /checkpoint (\S+)/.exec(cp.text)?.[1];
    expect(id).toBeTruthy();
    const applied: string[] = [];
    const safeties: string[] = [];
    const edits = (['a', 'b'] as const).map(async (w) => {
      const s = w === 'a' ? a : b;
      for (let j = 0; j < EDITS; j++) {
        const r = await call(s.client, 'edit_file', { path: file, old_text: slot(w, j), new_text: done(w, j) });
        if (!r.isError) applied.push(done(w, j));
      }
    });
    const restores = (async () => {
      for (let k = 0; k < 4; k++) {
        const r = await call(restorer.client, 'checkpoint_restore', { id });
        const safety = /checkpoint_restore \{"id": "([^"]+)"\}/.exec(r.text)?.[1];
        if (safety) safeties.push(safety);
        else expect(r.error?.code ?? r.text).toBe('E_STALE');
      }
    })();
    await Promise.all([...edits, restores]);
    const final = fs.readFileSync(path.join(root, file), 'utf8');
    const kept: string[] = [final];
    // What a restore wrote over is in its safety checkpoint: restore each and read it back.
    for (const safety of safeties) {
      const r = await cli(['checkpoint', 'restore', safety, '--root', root], root);
      expect(r.code, r.stderr).toBe(0);
      kept.push(fs.readFileSync(path.join(root, file), 'utf8'));
    }
    expect(applied.filter((l) => !kept.some((t) => t.includes(l)))).toEqual([]);
  }, 120_000);
});
