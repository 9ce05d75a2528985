/**
 * Where the Editor's own records go — context snapshots, the summary, the
 * stuck report — and the one way they are written. In a normal run they
 * are files of `agent/` in the project, written through the workspace (so
 * through its sandbox and its transaction): a name that would lead into the
 * Verifier's artifact folder (`.editwarden/`), into `.git/` or outside the
 * root is refused with the sandbox's own error, and anything the sandbox
 * allows but that is not directly inside `agent/` is refused too. In a dry
 * run the project must stay untouched, so the same records go into the
 * run folder instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EditwardenError, ErrorCode } from '../../errors.js';
import { atomicWriteFile } from '../../workspace/atomic.js';
import type { Workspace } from '../../workspace/workspace.js';

const AGENT_DIR = 'agent';

export type RecordTarget =
  /** `agent/` in the project, through the workspace. */
  | { kind: 'project'; ws: Workspace }
  /** `<run folder>/agent/` (dry run: nothing in the project changes). */
  | { kind: 'run-folder'; runDir: string; root: string };

/** `agent/<name>` resolved through the sandbox; refused unless it lands directly in agent/. */
export function agentPath(ws: Workspace, name: string): string {
  const requested = `${AGENT_DIR}/${name}`;
  const resolved = ws.resolve(requested);
  if (path.posix.dirname(resolved.relative) !== AGENT_DIR || !/^[\w.-]+$/.test(name) || name.startsWith('.')) {
    throw new EditwardenError({
      code: ErrorCode.DENIED_PATH,
      message: `${JSON.stringify(requested)} is not a file directly inside ${AGENT_DIR}/ (it resolves to ${JSON.stringify(resolved.relative)}).`,
      hint: `Editor records are plain file names inside ${AGENT_DIR}/; the Verifier's artifact folder and everything outside the root are off limits.`,
      path: requested,
    });
  }
  return resolved.relative;
}

/** Writes one record; returns where it went (relative to the root, "/" separators). */
export function writeRecord(target: RecordTarget, name: string, text: string): string {
  switch (target.kind) {
    case 'project': {
      const rel = agentPath(target.ws, name);
      const ws = target.ws;
      ws.transact((tx) => ws.commit(tx, [{ kind: 'write', path: rel, bytes: Buffer.from(text, 'utf8') }]));
      return rel;
    }
    case 'run-folder': {
      if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) {
        throw new EditwardenError({ code: ErrorCode.DENIED_PATH, message: `${JSON.stringify(name)} is not a plain record name.`, hint: 'Use a file name without folders.' });
      }
      const dir = path.join(target.runDir, AGENT_DIR);
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, name);
      atomicWriteFile(file, Buffer.from(text, 'utf8'));
      return path.relative(target.root, file).split(path.sep).join('/');
    }
    default: {
      const never: never = target;
      throw new Error(`unknown record target ${JSON.stringify(never)}`);
    }
  }
}

/** Removes records this session wrote (`written`: what writeRecord answered), through the workspace for the project. */
export function removeRecords(target: RecordTarget, written: readonly string[]): void {
  if (written.length === 0) return;
  switch (target.kind) {
    case 'project': {
      const ws = target.ws;
      // Each name is checked again as writeRecord checked it: only plain files directly inside agent/ are removed.
      const paths = written.map((rel) => agentPath(ws, path.posix.basename(rel)));
      ws.transact((tx) =>
        ws.commit(
          tx,
          paths.map((p) => ({ kind: 'delete' as const, path: p })),
        ),
      );
      return;
    }
    case 'run-folder':
      for (const rel of written) fs.rmSync(path.join(target.root, rel), { force: true });
      return;
    default: {
      const never: never = target;
      throw new Error(`unknown record target ${JSON.stringify(never)}`);
    }
  }
}

/** Names already present (to number versioned records after them). */
export function existingRecords(target: RecordTarget): string[] {
  const dir = target.kind === 'project' ? path.join(target.ws.root, AGENT_DIR) : path.join(target.runDir, AGENT_DIR);
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
