/**
 * Language hooks (syntax guard, AST paths) for an opened project.
 * `prepareLanguageHooks` prepares a fresh AstService per call, which is right
 * for a process that edits once (a CLI command, the demo).
 * `SessionLanguageHooks` is for a long-lived session (the MCP server). A server edits the same files again and again,
 * and every write tool runs the syntax guard twice (plan, then write) on the
 * same texts: a full tree-sitter parse of a 100k-line file costs ~0.7 s. So
 * the session keeps one AstService for the guard (its tree cache turns the
 * next edit of a file into an incremental re-parse) and remembers the last
 * verdict, which the write after a plan asks for again verbatim.
 * It decides nothing itself: the verdicts are the AstService's.
 */
import type { EngineHooks, SyntaxIssue } from '../edit/types.js';
import { defined } from '../defined.js';

/** Loads tree-sitter only when a request touches a code file (the AST module decides). */
export async function prepareLanguageHooks(paths: string[], policy: 'refuse' | 'warn' | 'off'): Promise<EngineHooks> {
  if (policy === 'off' && paths.length === 0) return {};
  // The language table is light; the tree-sitter modules load only for code files.
  const { languageForPath } = await import('../ast/languages/index.js');
  if (!paths.some((p) => languageForPath(p) !== undefined)) return {};
  const { prepareAstHooks } = await import('../ast/hooks.js');
  return prepareAstHooks(paths, policy);
}

type SyntaxPolicy = NonNullable<EngineHooks['syntaxPolicy']>;
type Guard = NonNullable<EngineHooks['newSyntaxErrors']>;

interface Verdict {
  path: string;
  before: string | null;
  after: string;
  issues: SyntaxIssue[];
}

export class SessionLanguageHooks {
  private guard: Guard | null = null;
  private last: Verdict | null = null;

  constructor(private readonly policy: SyntaxPolicy) {}

  /** What applyRequests' `prepareHooks` returns for these paths. */
  readonly prepare = async (paths: string[]): Promise<EngineHooks> => {
    // Loads the grammars the paths need (once per process) and says whether any is a code file.
    const fresh = await prepareLanguageHooks(paths, this.policy);
    if (!fresh.newSyntaxErrors) return fresh;
    // The first service's guard is kept: grammars load process-wide, so it serves every later language too.
    this.guard ??= fresh.newSyntaxErrors;
    return { ...defined({ applyAst: fresh.applyAst }), syntaxPolicy: fresh.syntaxPolicy ?? this.policy, newSyntaxErrors: this.check };
  };

  private readonly check: Guard = (path, before, after) => {
    const last = this.last;
    // String equality is a memcmp: microseconds against a parse of the same text.
    if (last && last.path === path && last.after === after && last.before === before) return last.issues;
    const issues = (this.guard as Guard)(path, before, after);
    this.last = { path, before, after, issues };
    return issues;
  };
}
