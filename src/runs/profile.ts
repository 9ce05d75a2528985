/**
 * How a run is run, as one value: its mode, what happens to the work when
 * the run fails, who approves each change, and whether anything reaches the
 * disk. The CLI, the MCP server, the demo and library callers each build one
 * `RunProfile` where they read their flags and options, and the layers below
 * read the profile instead of separate flags — so a mode is one value, not a
 * combination of booleans checked in several places. It only describes a
 * run; it never opens a workspace, starts one or renders anything. It lives
 * in runs/ (beside the run's outcome), not in host/: the Editor in agent/
 * reads it, and host/ is a floor above agent/.
 *
 * The failure policies are the three of DESIGN.md, one mechanism (a
 * transaction with a checkpoint) chosen per mode: `rollback` puts every file
 * back (controlled mode; headless under on_violation: rollback), `keep`
 * leaves the partial work (on_violation: keep; a dry run, which has nothing
 * on disk), `fix-forward` keeps the work and lets the Editor repair it.
 */
import type { Config } from '../config/config.js';
import type { FailurePolicy } from '../workspace/transaction.js';

export type { FailurePolicy };

export type ProfileMode = 'headless' | 'interactive' | 'controlled' | 'editor';
/** constraints: the limits alone decide (nobody is asked); person: each change is shown to a person who approves it. */
export type ApprovalPolicy = 'constraints' | 'person';

export interface RunProfile {
  readonly mode: ProfileMode;
  readonly failure: FailurePolicy;
  readonly approval: ApprovalPolicy;
  /** Nothing reaches the project's files: the Editor works on an overlay and leaves a proposal. */
  readonly dryRun: boolean;
}

export interface ProfileChoice {
  config: Pick<Config, 'constraints'>;
  dryRun?: boolean | undefined;
}

/** The profile of a mode under a config: the one place a mode's policies are chosen. */
export function runProfile(mode: ProfileMode, choice: ProfileChoice): RunProfile {
  const dryRun = choice.dryRun === true;
  const onViolation = choice.config.constraints.on_violation;
  switch (mode) {
    case 'headless':
      return { mode, failure: onViolation, approval: 'constraints', dryRun: false };
    case 'interactive':
      return { mode, failure: onViolation, approval: 'person', dryRun: false };
    case 'controlled':
      // Exactly one edit; a failed build restores the file.
      return { mode, failure: 'rollback', approval: 'constraints', dryRun: false };
    case 'editor':
      return { mode, failure: dryRun ? 'keep' : 'fix-forward', approval: 'constraints', dryRun };
    default: {
      const never: never = mode;
      throw new Error(`unknown run mode ${String(never)}`);
    }
  }
}

/** The Editor's three flavours are one profile (mode editor) and its input: a dry run, a proposal to apply first, or the task alone. */
export type EditorFlavour = 'editor' | 'dry-run' | 'apply-proposal';

export function editorFlavour(profile: RunProfile, applyingProposal: boolean): EditorFlavour {
  if (profile.dryRun) return 'dry-run';
  return applyingProposal ? 'apply-proposal' : 'editor';
}
