/**
 * The ledger a Run carries (src/runs/ledger.ts): the same count in memory
 * (editwarden's own runs) and in the state folder (a client session, where
 * each charge is a process of its own) — the same verdict for every
 * sequence of charges — and the session's file is state like any other: a
 * damaged or linked ledger is a refusal, never a count from zero.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/config.js';
import { ErrorCode } from '../../src/errors.js';
import { openLedger, type RunLimits, type SessionStore } from '../../src/runs/ledger.js';
import { openWorkspace } from '../../src/workspace/open.js';
import { tempDir } from '../temp-dirs.js';

function limits(max_files: number, max_lines_changed: number): RunLimits {
  return { constraints: { ...defaultConfig().constraints, max_files, max_lines_changed }, guard: { mode: 'interactive' } };
}

function store(session = 's-1'): SessionStore {
  const { ws, transactions } = openWorkspace(tempDir('ew-ledger-'));
  return { key: { client: 'claude', session }, stateDir: ws.stateDir, lock: transactions.checkpoints.lock };
}

const change = fc.record({ path: fc.constantFrom('a.txt', 'b.txt', 'c.txt', 'd/e.txt'), added: fc.nat(6), removed: fc.nat(6) });

describe('one count, two stores', () => {
  it('a session ledger (a fresh ledger per charge, as each hook call is its own process) gives every charge the verdict an in-memory ledger gives it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 20 }), fc.array(fc.array(change, { minLength: 1, maxLength: 3 }), { maxLength: 6 }), (files, lines, charges) => {
        const where = store();
        const memory = openLedger(limits(files, lines), null);
        for (const [i, changes] of charges.entries()) {
          const site = { tool: 'write_file', call: i };
          const own = memory.charge(changes, site);
          const session = openLedger(limits(files, lines), where).charge(changes, site);
          expect({ i, verdict: session?.constraint ?? null }).toEqual({ i, verdict: own?.constraint ?? null });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('over the limit, the refusal names the session usage; a refused charge is not counted', () => {
    const where = store();
    expect(openLedger(limits(1, 100), where).charge([{ path: 'a.txt', added: 1, removed: 0 }], {})).toBeNull();
    const refused = openLedger(limits(1, 100), where).charge([{ path: 'b.txt', added: 1, removed: 0 }], {});
    expect(refused?.constraint).toBe('max_files');
    expect(refused?.message).toContain('2 of 1 files used in this session: a.txt, b.txt');
    // b.txt was not counted: a.txt again still fits.
    expect(openLedger(limits(1, 100), where).charge([{ path: 'a.txt', added: 1, removed: 0 }], {})).toBeNull();
    // Another session of the same client has its own ledger.
    const other = { ...where, key: { client: 'claude', session: 's-2' } };
    expect(openLedger(limits(1, 100), other).charge([{ path: 'b.txt', added: 1, removed: 0 }], {})).toBeNull();
  });

  it('record counts what happened, fit or not, and check counts nothing', () => {
    const where = store();
    const ledger = openLedger(limits(1, 100), where);
    expect(
      ledger.check(
        [
          { path: 'a.txt', added: 1, removed: 0 },
          { path: 'b.txt', added: 1, removed: 0 },
        ],
        {},
      )?.constraint,
    ).toBe('max_files');
    ledger.record([
      { path: 'a.txt', added: 1, removed: 0 },
      { path: 'b.txt', added: 1, removed: 0 },
    ]);
    expect(openLedger(limits(5, 100), where).check([{ path: 'c.txt', added: 99, removed: 0 }], {})?.constraint).toBe('max_lines_changed');
    expect(openLedger(limits(5, 100), where).check([{ path: 'c.txt', added: 98, removed: 0 }], {})).toBeNull();
  });
});

describe("a session's ledger is state: damaged or linked, it refuses", () => {
  const ledgerFile = (where: SessionStore): string => {
    openLedger(limits(5, 100), where).charge([{ path: 'a.txt', added: 1, removed: 0 }], {});
    const dir = path.join(where.stateDir, 'sessions');
    return path.join(dir, fs.readdirSync(dir)[0] ?? '');
  };

  it('any text that is not a valid ledger of this session is E_IO, for every charge', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.json(), fc.constant('{"format":1,"client":"claude","session":"other","files":{}}'), fc.constant('{"format":1,"client":"claude","session":"s-1","files":{"a.txt":{"added":-1,"removed":0}}}')),
        (text) => {
          const where = store();
          fs.writeFileSync(ledgerFile(where), text);
          expect(() => openLedger(limits(5, 100), where).charge([{ path: 'b.txt', added: 1, removed: 0 }], {})).toThrow(expect.objectContaining({ code: ErrorCode.IO }));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a ledger planted as a link is not followed', () => {
    const where = store();
    const file = ledgerFile(where);
    const elsewhere = path.join(tempDir('ew-ledger-out-'), 'ledger.json');
    fs.writeFileSync(elsewhere, fs.readFileSync(file));
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    expect(() => openLedger(limits(5, 100), where).check([{ path: 'b.txt', added: 1, removed: 0 }], {})).toThrow(expect.objectContaining({ code: ErrorCode.IO }));
  });
});
