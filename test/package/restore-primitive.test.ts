/**
 * One rule, one place (issue 37): editwarden never overwrites or deletes a
 * byte of the person's files it cannot give back. Every write it makes to
 * project files from a checkpoint — checkpoint restore, undo, redo, a
 * command's put-back, a transaction's rollback (a run's, the Editor's,
 * controlled mode's), recovery after a crash — is `CheckpointService.restore`
 * (src/workspace/checkpoints/service.ts), which captures first. This file
 * reads src/ with TypeScript's own parser and fails when:
 *
 * - any module but the primitive applies a manifest (`applyManifest`);
 * - a restore is asked to skip its capture (an option the type no longer has,
 *   spelled in plain JS or behind a cast);
 * - a module of the undo, restore and put-back routes mutates the file
 *   system itself, beyond the few writes listed here with what they touch
 *   (the state folder, editwarden's own temp files, the protected set).
 */
import fs from 'node:fs';
import path from 'node:path';
import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';
import { ts } from '../typescript.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const PRIMITIVE = 'workspace/checkpoints/service.ts';
const APPLIER = 'workspace/checkpoints/restore.ts';

/** The modules a restore, undo, redo, put-back, rollback or recovery runs through (besides the primitive and its applier). */
const ROUTES = [
  'workspace/checkpoints/history.ts',
  'workspace/checkpoints/undo-state.ts',
  'workspace/checkpoints/undo-select.ts',
  'workspace/checkpoints/changes.ts',
  'workspace/checkpoints/steps.ts',
  'workspace/checkpoints/recovery.ts',
  'workspace/transaction.ts',
  'runs/run.ts',
  'integrations/shell.ts',
  'integrations/wrap.ts',
  'integrations/wrap-steps.ts',
  'guard/command-effects.ts',
  'tools/execute-command.ts',
  'tools/service-tools.ts',
  'tools/runner.ts',
  'agent/controlled.ts',
  'cli/commands/undo.ts',
  'cli/commands/checkpoint.ts',
];

/** Calls that change the file system: node's, and editwarden's own writers. */
const MUTATORS = new Set([
  'writeFileSync',
  'writeFile',
  'appendFileSync',
  'unlinkSync',
  'unlink',
  'rmSync',
  'rm',
  'rmdirSync',
  'renameSync',
  'rename',
  'mkdirSync',
  'copyFileSync',
  'cpSync',
  'truncateSync',
  'ftruncateSync',
  'symlinkSync',
  'linkSync',
  'chmodSync',
  'fchmodSync',
  'chownSync',
  'utimesSync',
  'writeSync',
  'atomicWriteFile',
  'atomicWriteAt',
  'applyManifest',
  'revertGoverning',
  'writeAll',
]);

/** Each mutation a route module may make itself, with what it touches: never a person's file. */
const ALLOWED: Record<string, Record<string, string>> = {
  'workspace/checkpoints/undo-state.ts': { atomicWriteFile: 'the undo history in the state folder (.editwarden/undo.json)' },
  'workspace/checkpoints/steps.ts': { atomicWriteAt: 'after records in the state folder', rmSync: 'after records of dropped checkpoints, in the state folder' },
  'workspace/checkpoints/recovery.ts': { unlinkSync: "a dead writer's own temp file (.ew-tmp-<name>.<hex>), checked by name" },
  'workspace/transaction.ts': { writeAll: "the transaction's own atomic writes, after its checkpoint (the write, not a restore)" },
  'guard/command-effects.ts': { revertGoverning: "the protected set (.git/, configs, client settings): the agent's changes to it, which undo never brings back" },
};

function calls(rel: string): Array<{ name: string; line: number; text: string }> {
  const file = path.join(SRC, rel);
  const tree = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2023, true);
  const out: Array<{ name: string; line: number; text: string }> = [];
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : null;
      if (name !== null) out.push({ name, line: tree.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText().slice(0, 120) });
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return out;
}

/** Whether a module's text holds `word` at all (only those are parsed). */
function mentions(rel: string, word: string): boolean {
  return fs.readFileSync(path.join(SRC, rel), 'utf8').includes(word);
}

function sources(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

describe('every write editwarden makes from a checkpoint goes through the one restore primitive', () => {
  it('only the primitive applies a manifest (applyManifest is called in service.ts alone)', () => {
    const callers = sources().flatMap((rel) =>
      rel === APPLIER || !mentions(rel, 'applyManifest')
        ? []
        : calls(rel)
            .filter((c) => c.name === 'applyManifest')
            .map((c) => `${rel}:${c.line}`),
    );
    expect(callers.length).toBeGreaterThan(0);
    expect(callers.filter((c) => !c.startsWith(`${PRIMITIVE}:`))).toEqual([]);
  });

  it('no restore is asked to skip its capture: no `safety` option is passed to a restore anywhere', () => {
    const skipping = sources().flatMap((rel) => (mentions(rel, 'safety') ? calls(rel) : []).filter((c) => c.name === 'restore' && /\bsafety\s*:/.test(c.text)).map((c) => `${rel}:${c.line}: ${c.text}`));
    expect(skipping).toEqual([]);
    // And the primitive has no such switch: its options type says what it may be asked.
    const primitive = fs.readFileSync(path.join(SRC, PRIMITIVE), 'utf8');
    const options = primitive.slice(primitive.indexOf('export interface RestoreOptions'), primitive.indexOf('}', primitive.indexOf('export interface RestoreOptions')));
    expect(options).not.toMatch(/\bsafety\??:/);
  });

  it('the primitive captures before it applies: a safety checkpoint is made before the first applyManifest', () => {
    const text = fs.readFileSync(path.join(SRC, PRIMITIVE), 'utf8');
    const body = text.slice(text.indexOf('  restore(id: string'), text.indexOf('  /** Removes a checkpoint'));
    const capture = body.search(/this\.create(Workspace|Files)\(/);
    const apply = body.indexOf('applyManifest(');
    expect(capture).toBeGreaterThan(0);
    expect(apply).toBeGreaterThan(capture);
  });

  it('the modules of the undo, restore and put-back routes write no project file themselves', () => {
    const found: string[] = [];
    for (const rel of ROUTES) {
      expect(fs.existsSync(path.join(SRC, rel)), `${rel} is where this test looks for it`).toBe(true);
      const allowed = ALLOWED[rel] ?? {};
      for (const c of calls(rel)) if (MUTATORS.has(c.name) && !(c.name in allowed)) found.push(`${rel}:${c.line}: ${c.text}`);
    }
    expect(found).toEqual([]);
  });

  it('each allowance names a call its module still makes (none kept for nothing)', () => {
    for (const [rel, allowed] of Object.entries(ALLOWED)) {
      const made = new Set(calls(rel).map((c) => c.name));
      for (const name of Object.keys(allowed)) expect(made.has(name), `${rel} no longer calls ${name}: drop it from ALLOWED`).toBe(true);
    }
  });
});
