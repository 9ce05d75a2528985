/**
 * The shell command a model wraps an apply_patch envelope in, as Codex's
 * models send it through a shell tool: `cd 'foo bar' && apply_patch <<'PATCH'`
 * on the line above `*** Begin Patch`. Pure. It must never drop a `cd`: the
 * paths of the envelope are relative to the folder the command runs in, so a
 * `cd` into a folder of the root is honoured and anything it cannot model
 * (a second command, a variable, a folder outside the root) is refused.
 *
 * Grammar of the line right above the envelope (blank lines may stand between):
 *
 *   line    := PROMPT? shell? cd? APPLY "<<" "-"? DELIM QUOTE?
 *   shell   := ("bash" | "sh" | "zsh") ("-lc" | "-c") QUOTE      (the script runs to a later line)
 *   cd      := "cd" WORD "&&"
 *   APPLY   := "apply_patch" | "applypatch"
 *   DELIM   := NAME | "'" NAME "'" | '"' NAME '"'
 *   WORD    := a bare word without shell metacharacters, or a '…' / "…" string without "$", "`", "\"
 *   PROMPT  := "$ "
 *
 * A line that names apply_patch in any other shape is refused: its meaning
 * (where the paths are) cannot be known without running a shell.
 */
import { EditwardenError, ErrorCode } from '../errors.js';
import { parseError } from './parse-result.js';

export type PatchWrapper = { kind: 'none' } | { kind: 'apply_patch'; dir: string } | { kind: 'refused'; error: EditwardenError };

/**
 * A line that runs apply_patch from a shell: it starts with a command word (cd, a shell, apply_patch itself) or
 * chains apply_patch after another command. Prose that only mentions apply_patch ("Here is the apply_patch
 * call:") is not a wrapper and refuses nothing.
 */
const RUNS_APPLY_PATCH = /^(?:(?:cd|bash|sh|zsh|apply_?patch)\b.*\bapply_?patch\b|.*(?:&&|\|\||;|\|)\s*apply_?patch\b)/;
const SHELL = /^(?:bash|sh|zsh)\s+-l?c\s+(['"])(.*)$/;
const WORD = String.raw`'[^'$\`\\]*'|"[^"$\`\\]*"|[^\s;&|<>()'"\`$\\]+`;
const INVOCATION = new RegExp(String.raw`^(?:cd\s+(${WORD})\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*(['"]?)([A-Za-z_][\w-]*)\2\s*['"]?\s*$`);

const HINT = 'Send the patch on its own ("*** Begin Patch" … "*** End Patch") with paths relative to the project root, or as "cd DIR && apply_patch <<\'EOF\'" with one cd into a folder inside the root and nothing else on the line.';

/** Reads the wrapper line above an envelope (`line` is its 1-based number, for errors). */
export function readPatchWrapper(text: string, line: number): PatchWrapper {
  let command = text.trim().replace(/^\$\s+/, '');
  if (!RUNS_APPLY_PATCH.test(command)) return { kind: 'none' };
  const shell = SHELL.exec(command);
  if (shell) command = (shell[2] as string).trim();
  const m = INVOCATION.exec(command);
  if (!m) {
    return {
      kind: 'refused',
      error: parseError(`Line ${line} runs apply_patch inside a shell command editwarden cannot model (${JSON.stringify(text.trim().slice(0, 80))}): where its paths lead depends on the rest of the command.`, line, HINT),
    };
  }
  const word = m[1];
  if (word === undefined) return { kind: 'apply_patch', dir: '' };
  const dir = unquote(word);
  const resolved = folderInRoot(dir);
  if (resolved === null) {
    return {
      kind: 'refused',
      // Defends against: a patch whose paths are resolved from a folder outside the root ("cd .. &&", "cd /etc &&").
      error: new EditwardenError({
        code: ErrorCode.OUTSIDE_ROOT,
        message: `Line ${line} changes into ${JSON.stringify(dir)} before apply_patch: that folder is outside the project root, so none of this patch is applied.`,
        hint: HINT,
        line,
      }),
    };
  }
  return { kind: 'apply_patch', dir: resolved };
}

function unquote(word: string): string {
  if ((word.startsWith("'") && word.endsWith("'")) || (word.startsWith('"') && word.endsWith('"'))) return word.slice(1, -1);
  return word;
}

/** The folder as a root-relative path ("" for the root itself); null when it leaves the root or is absolute. */
export function folderInRoot(dir: string): string | null {
  if (dir === '' || dir.startsWith('/') || dir.startsWith('~') || /^[A-Za-z]:[\\/]/.test(dir)) return null;
  const parts: string[] = [];
  for (const part of dir.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

/** A path of the envelope, read from the folder the wrapper changed into. */
export function underFolder(dir: string, path: string): string {
  if (dir === '' || path.startsWith('/')) return path;
  return `${dir}/${path}`;
}
