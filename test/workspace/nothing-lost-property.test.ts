/**
 * "Nothing lost", model-based (issue 37): random sequences of agent edits,
 * agent commands (create, modify, delete, rename; tracked files and an
 * ignored one, which a command's checkpoint covers), a person's edits between
 * and during them, undo, forced undo, redo and put-backs, on real files.
 * Every content editwarden's own side (an agent edit, a command, an undo, a
 * redo, a put-back) replaced or deleted — unless the person overwrote it
 * themselves after editwarden had given it back — must still be reachable
 * afterwards by undo and redo alone: the test walks the whole history down (forced
 * undos) and up again (redos) and looks for each one.
 *
 * A command's processes are this test process; which files they wrote is
 * handed to the effects as the write witness would (the witness itself is
 * pinned with real strace in test/sandbox/witness.test.ts). Every content
 * written is unique, so a content found again is the very one replaced.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyRequests } from '../../src/apply/pipeline.js';
import { CommandEffects } from '../../src/guard/command-effects.js';
import { UndoHistory } from '../../src/workspace/checkpoints/history.js';
import { openWorkspace } from '../../src/workspace/open.js';
import type { WitnessLog } from '../../src/sandbox/witness.js';
import { tempDir } from '../temp-dirs.js';

/** Tracked files, and `x.log`, ignored by the project's .gitignore (a command's checkpoint covers the ignored files it touches). */
const FILES = ['a.txt', 'b.txt', 'd/c.txt', 'x.log'] as const;
type File = (typeof FILES)[number];
const file = fc.constantFrom(...FILES);

type Op =
  | { t: 'edit'; path: File }
  | { t: 'person'; path: File; remove: boolean }
  | { t: 'cmd'; kind: 'create' | 'modify' | 'delete' | 'rename'; path: File; to: File; during: File | null; putBack: boolean }
  | { t: 'undo'; force: boolean }
  | { t: 'redo' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('edit' as const), path: file }),
  fc.record({ t: fc.constant('person' as const), path: file, remove: fc.boolean() }),
  fc.record({ t: fc.constant('cmd' as const), kind: fc.constantFrom('create' as const, 'modify' as const, 'delete' as const, 'rename' as const), path: file, to: file, during: fc.option(file, { nil: null }), putBack: fc.boolean() }),
  fc.record({ t: fc.constant('undo' as const), force: fc.boolean() }),
  fc.record({ t: fc.constant('redo' as const) }),
);

type State = Record<string, string | null>;

function snapshot(root: string): State {
  const out: State = {};
  for (const f of FILES) {
    try {
      out[f] = fs.readFileSync(path.join(root, f), 'utf8');
    } catch {
      out[f] = null;
    }
  }
  return out;
}

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

async function play(ops: readonly Op[]): Promise<void> {
  const root = tempDir('ew-nothing-lost-');
  write(root, 'a.txt', 'a0\n');
  write(root, 'b.txt', 'b0\n');
  write(root, 'd/c.txt', 'c0\n');
  write(root, 'x.log', 'log0\n');
  write(root, '.gitignore', '*.log\n');
  const { ws, transactions } = openWorkspace(root);
  const checkpoints = transactions.checkpoints;
  const history = new UndoHistory(checkpoints);
  const effects = new CommandEffects(checkpoints);
  let n = 0;
  const unique = (who: string): string => `${who}-${++n}\n`;
  /** Contents editwarden's side replaced or deleted: each must be reachable again. */
  const owed = new Set<string>();
  /** `persons`: a file the person replaced meanwhile (not editwarden's side): what it held is not owed. */
  const owe = (before: State, after: State, persons: File | null = null): void => {
    for (const f of FILES) if (f !== persons && before[f] !== after[f] && before[f] !== null) owed.add(`${f}=${before[f]}`);
  };

  const forgive = (f: File): void => {
    const now = snapshot(root)[f];
    if (now !== null && now !== undefined) owed.delete(`${f}=${now}`);
  };

  for (const o of ops) {
    const before = snapshot(root);
    switch (o.t) {
      case 'edit': {
        const exists = before[o.path] !== null;
        const out = await applyRequests(ws, [exists ? { path: o.path, action: 'overwrite', content: unique('agent'), explicit: true } : { path: o.path, action: 'create', content: unique('agent') }]);
        expect(out.ok, JSON.stringify(out.results)).toBe(true);
        owe(before, snapshot(root));
        break;
      }
      case 'person':
        // What the person overwrites is theirs to lose (editwarden had given it back, or never held it).
        forgive(o.path);
        if (o.remove) fs.rmSync(path.join(root, o.path), { force: true });
        else write(root, o.path, unique('person'));
        break;
      case 'cmd': {
        const label = unique('cmd').trim();
        const mark = effects.before(label, { command: label });
        const start = new Date().toISOString();
        const wrote = new Set<string>();
        const exists = (f: string): boolean => fs.existsSync(path.join(root, f));
        const kind = o.kind !== 'create' && !exists(o.path) ? 'create' : o.kind;
        // The person writes during the command (before its own write: the command's, if it is the same file, lands on top).
        if (o.during !== null) {
          forgive(o.during);
          write(root, o.during, unique('person'));
        }
        if (kind === 'create' || kind === 'modify') write(root, o.path, kind === 'modify' ? fs.readFileSync(path.join(root, o.path), 'utf8') + unique('cmd') : unique('cmd'));
        else if (kind === 'delete') fs.rmSync(path.join(root, o.path));
        else if (o.to !== o.path) {
          fs.mkdirSync(path.dirname(path.join(root, o.to)), { recursive: true });
          fs.renameSync(path.join(root, o.path), path.join(root, o.to));
          wrote.add(o.to);
        }
        wrote.add(o.path);
        const witness: WitnessLog = { paths: wrote, tails: new Set(), trees: new Set() };
        const found = effects.after(mark, { witness, window: { start, end: new Date().toISOString() } });
        // A person's file the command did not write is never charged to it; held in its step (a tracked file's diff), it is
        // marked as not shown to be its own. An ignored one the witness did not name is not looked at: not in the step at all.
        if (o.during !== null && !wrote.has(o.during)) {
          const during = o.during;
          expect(found.changes.map((c) => c.path)).not.toContain(during);
          const held = found.step !== null && (found.ignored.kept.includes(during) || during !== 'x.log');
          expect(!held || found.unshown.includes(during) || snapshot(root)[during] === before[during]).toBe(true);
        }
        owe(before, snapshot(root), o.during !== null && !wrote.has(o.during) ? o.during : null);
        if (o.putBack) {
          const mid = snapshot(root);
          effects.putBack(found, `put-back of ${label}`);
          owe(mid, snapshot(root));
        }
        break;
      }
      case 'undo':
        try {
          history.undo({ force: o.force });
          owe(before, snapshot(root));
        } catch (error) {
          expect((error as { code?: string }).code).toBe('E_CHANGED_SINCE');
          expect(o.force).toBe(false);
          // A refused undo writes nothing.
          expect(snapshot(root)).toEqual(before);
        }
        break;
      case 'redo':
        history.redo();
        owe(before, snapshot(root));
        break;
      default: {
        const never: never = o;
        throw new Error(String(never));
      }
    }
  }

  // Walk the whole history: forced undos all the way down, redos all the way up, and down again; note every content seen.
  const seen = new Set<string>();
  const note = (): void => {
    for (const [f, text] of Object.entries(snapshot(root))) if (text !== null) seen.add(`${f}=${text}`);
  };
  note();
  const down = (): void => {
    for (let i = 0; i < 200; i++) {
      if (history.undo({ force: true }).change === null) return;
      note();
    }
  };
  down();
  for (let i = 0; i < 200; i++) {
    if (history.redo().length === 0) break;
    note();
  }
  down();
  const lost = [...owed].filter((c) => !seen.has(c));
  expect(lost, `ops: ${JSON.stringify(ops)}`).toEqual([]);
}

describe('nothing editwarden replaces is out of reach of undo and redo', () => {
  it('random edits, commands, put-backs, undos (forced or not), redos and a person’s edits between and during them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), (ops) => play(ops)),
      {
        numRuns: 20,
        // Sequences that once broke it: an undo whose redo a new change dropped; a redo over a person's write; a forced undo of a person's edit during a command.
        examples: [
          // A person's ignored file written during a command the witness saw write another: not the command's, not in its step.
          [
            [
              { t: 'cmd', kind: 'create', path: 'a.txt', to: 'a.txt', during: 'x.log', putBack: false },
              { t: 'edit', path: 'a.txt' },
            ],
          ],
          [
            [
              { t: 'edit', path: 'a.txt' },
              { t: 'undo', force: false },
              { t: 'edit', path: 'a.txt' },
              { t: 'undo', force: false },
            ],
          ],
          [[{ t: 'cmd', kind: 'create', path: 'a.txt', to: 'a.txt', during: null, putBack: false }, { t: 'undo', force: false }, { t: 'person', path: 'a.txt', remove: false }, { t: 'redo' }]],
          [
            [
              { t: 'cmd', kind: 'modify', path: 'a.txt', to: 'a.txt', during: 'b.txt', putBack: false },
              { t: 'undo', force: true },
            ],
          ],
          [
            [
              { t: 'cmd', kind: 'delete', path: 'x.log', to: 'x.log', during: null, putBack: false },
              { t: 'cmd', kind: 'rename', path: 'a.txt', to: 'x.log', during: 'x.log', putBack: true },
              { t: 'undo', force: false },
            ],
          ],
        ],
      },
    );
  }, 240_000);
});
