/**
 * The life of a command that writes edits (`edit`, `apply`): read the config
 * and the input (a refusal here has written nothing), open the project,
 * apply, print, and exit 0 when everything applied, 1 otherwise. Every
 * refusal goes through refuseCommand (errors.ts's one envelope, with the
 * empty `results` the edit contract promises). Must never write anything
 * itself: the apply step owns every write.
 */
import type { Config } from '../../config/config.js';
import type { ConfigTrust } from '../../config/trust-state.js';
import { loadProjectConfigCached } from '../../host/config-cache.js';
import { ExitCode } from '../../errors.js';
import { refuseCommand, type Io } from '../output.js';
import { openForCommand } from '../workspace.js';
import type { OpenedProject as OpenedForCommand } from '../../host/project.js';

export interface WriteCommandFlags {
  root?: string;
  config?: string;
  strict?: boolean;
  json?: boolean;
}

export interface WriteCommandSteps<I, O extends { ok: boolean }> {
  /** Reads what to apply (flags, a file, stdin); may throw a refusal. */
  input(): Promise<I>;
  /** Plans with the project's `applyOptions` (its edit options: the config's, with --strict). */
  apply(opened: OpenedForCommand, input: I): Promise<O>;
  print(outcome: O): void;
}

export async function runWriteCommand<I, O extends { ok: boolean }>(flags: WriteCommandFlags, io: Io, steps: WriteCommandSteps<I, O>): Promise<number> {
  const root = flags.root ?? process.cwd();
  const json = flags.json === true;
  let config: Config;
  let trust: ConfigTrust;
  let input: I;
  try {
    ({ config, trust } = await loadProjectConfigCached(root, flags.config));
    // --strict is the config's edit.strict set by the command line: the project makes its edit options from it.
    if (flags.strict === true) config = { ...config, edit: { ...config.edit, strict: true } };
    input = await steps.input();
  } catch (error) {
    return refuseCommand(error, json, io, { results: [] });
  }
  let outcome: O;
  try {
    outcome = await steps.apply(await openForCommand(root, config, io, json, flags.config, trust), input);
  } catch (error) {
    return refuseCommand(error, json, io, { results: [] });
  }
  steps.print(outcome);
  return outcome.ok ? ExitCode.OK : ExitCode.REJECTED;
}
