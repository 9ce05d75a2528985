/**
 * A history of two client sessions, made as a client's hooks and guarded
 * shell make it (the real binary): session s-1 — two native Writes (one of
 * an existing file) and two Bash commands, one `rm -rf src` — then session
 * s-2 — one Write. The undo tests of every route (CLI, MCP, library) start
 * from it.
 *
 * Made once per test file (eight editwarden processes, two of them sandboxed
 * commands) and kept as a copy; each later test starts from that copy put
 * back at the same path (a history records its project's path: a command's
 * working folder), so every test finds the project exactly as the sessions
 * left it, bytes, modes and times, and undoes it from there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { editwarden, project, tempDir } from './helpers.js';

export const read = (root: string, file: string): string => fs.readFileSync(path.join(root, file), 'utf8');

/** A client's native Write as its hooks see it: the pre hook vets and checkpoints, the client writes, the post hook confirms. */
function nativeWrite(root: string, session: string, file: string, content: string, call: string): void {
  const input = { session_id: session, tool_name: 'Write', tool_use_id: call, tool_input: { file_path: path.join(root, file), content } };
  const pre = editwarden(['hook', 'claude', 'pre-tool-use', '--root', root], { input: JSON.stringify(input) });
  expect(pre.stdout, pre.stderr).toBe('');
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), content);
  expect(editwarden(['hook', 'claude', 'post-tool-use', '--root', root], { input: JSON.stringify({ ...input, tool_input: {} }) }).code).toBe(0);
}

/** A client's Bash command as the rewritten hook runs it: `editwarden shell` in the sandbox, one undo step. */
function bash(root: string, session: string, command: string): void {
  const r = editwarden(['shell', '--client', 'claude', '--tool', 'Bash', '--root', root, '--session', session, '--', command], { cwd: root });
  expect(r.code, r.stderr).toBe(0);
}

const SRC = { 'src/a.ts': 'export const a = 1;\n', 'src/lib/b.ts': 'export const b = "b";\n' };

const BEFORE = { ...SRC, 'notes.txt': 'one\n' };

/** The project the sessions were made in, and the copy of it as they left it (both removed by cleanup()). */
let made: { root: string; copy: string } | undefined;

/** Session s-1: two edits and two commands (one `rm -rf src`); then session s-2: one edit. */
export function twoSessions(): { root: string; before: Record<string, string> } {
  const before = { ...BEFORE };
  // A later test of the same file: the project put back as the sessions left it (cleanup() ends a file's copy).
  if (made !== undefined && fs.existsSync(made.copy)) {
    fs.rmSync(made.root, { recursive: true, force: true });
    fs.cpSync(made.copy, made.root, { recursive: true, preserveTimestamps: true });
    return { root: made.root, before };
  }
  const root = project(BEFORE);
  nativeWrite(root, 's-1', 'notes.txt', 'one\ntwo\n', 't1');
  nativeWrite(root, 's-1', 'new.txt', 'new\n', 't2');
  bash(root, 's-1', 'rm -rf src');
  bash(root, 's-1', 'echo three >> notes.txt');
  nativeWrite(root, 's-2', 'other.txt', 'other\n', 't3');
  const copy = path.join(tempDir('ew-sessions-'), 'project');
  fs.cpSync(root, copy, { recursive: true, preserveTimestamps: true });
  made = { root, copy };
  return { root, before };
}
