/**
 * Language hooks (syntax guard, AST paths) for a long-lived MCP session.
 * The CLI prepares a fresh AstService per command, which is right for a
 * process that edits once. A server edits the same files again and again,
 * and every write tool runs the syntax guard twice (plan, then write) on the
 * same texts: a full tree-sitter parse of a 100k-line file costs ~0.7 s. So
 * the session keeps one AstService for the guard (its tree cache turns the
 * next edit of a file into an incremental re-parse) and remembers the last
 * verdict, which the write after a plan asks for again verbatim.
 * It decides nothing itself: the verdicts are the AstService's.
 */
import { prepareLanguageHooks } from '../cli/workspace.js';
import type { EngineHooks, SyntaxIssue } from '../edit/types.js';

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
    return { ...(fresh.applyAst ? { applyAst: fresh.applyAst } : {}), syntaxPolicy: fresh.syntaxPolicy ?? this.policy, newSyntaxErrors: this.check };
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
