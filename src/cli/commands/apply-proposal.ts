/**
 * `editwarden apply-proposal <file>`: writes a dry run's proposal (one
 * unified diff, all or nothing, through the workspace sandbox) and runs the
 * full verification with the Editor's normal debug loop. Green: summary,
 * exit 0. FAIL: with --model the Editor fixes forward (REPLAN, hard stop,
 * stuck report as usual); without one the changes are kept and it exits 3.
 *
 *   editwarden apply-proposal FILE [--model provider:model] [--base-url URL]
 *                             [--root DIR] [--config F] [--max-turns N] [--json]
 *
 * Thin: flags → runEditorCommand.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../../config/config.js';
import type { ConfigTrust } from '../../config/trust-state.js';
import { loadProjectConfig } from '../../config/load.js';
import { toErrorInfo, type ErrorInfo } from '../../errors.js';
import { refuseCommand, type Io } from '../output.js';
import { apiKeyEnvProblem, providerFromFlags } from '../model-flags.js';
import { openForCommand } from '../workspace.js';
import { defined } from '../../defined.js';

interface ApplyProposalFlags {
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  stream?: boolean;
  root?: string;
  config?: string;
  maxTurns?: string;
  json?: boolean;
}

export function registerApplyProposal(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('apply-proposal')
    .description("Write a dry run's proposal (one unified diff) and verify it with the Editor's debug loop; with --model the Editor fixes a failing verification forward.")
    .argument('<file>', 'the proposal file (proposal.diff of a dry run)')
    .option('--model <provider:model>', 'the Editor model that fixes forward when the verification fails')
    .option('--base-url <url>', "the provider's endpoint (OpenAI-compatible servers: …/v1)")
    .option('--api-key-env <name>', "environment variable holding the key (default: the provider's usual one)")
    .option('--no-stream', 'ask for whole replies instead of streamed ones')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--max-turns <n>', 'model turns before the session stops (default 50)')
    .option('--json', 'print the outcome as JSON')
    .action(async (file: string, flags: ApplyProposalFlags) => {
      setExit(await applyProposalCommand(file, flags, io));
    });
}

function refuse(info: ErrorInfo, json: boolean, io: Io): number {
  return refuseCommand(info, json, io);
}

async function applyProposalCommand(file: string, flags: ApplyProposalFlags, io: Io): Promise<number> {
  const json = flags.json === true;
  const root = flags.root ?? process.cwd();
  let text: string;
  let config: Config;
  let trust: ConfigTrust;
  let maxTurns: number | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
    ({ config, trust } = loadProjectConfig(root, flags.config));
    if (flags.maxTurns !== undefined) {
      maxTurns = Number(flags.maxTurns);
      if (!Number.isInteger(maxTurns) || maxTurns <= 0) throw Object.assign(new Error('--max-turns must be a positive whole number.'), { usage: true });
    }
    // The model key must never reach a command: a name on the environment allowlist would pass it on.
    const keyProblem = apiKeyEnvProblem(flags.apiKeyEnv, config.sandbox.env);
    if (keyProblem) throw Object.assign(new Error(keyProblem), { usage: true });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { usage?: boolean };
    const info: ErrorInfo =
      e.code === 'ENOENT' || e.code === 'EISDIR'
        ? { code: 'E_USAGE', message: `Cannot read the proposal ${file}: ${e.message}.`, hint: 'Pass the proposal.diff a dry run wrote (its path is printed at the end of the dry run).' }
        : e.usage
          ? { code: 'E_USAGE', message: e.message, hint: 'Run `editwarden apply-proposal --help`.' }
          : toErrorInfo(error);
    return refuse(info, json, io);
  }

  let provider;
  if (flags.model) {
    const { AgentError } = await import('../../agent/providers/errors.js');
    try {
      provider = await providerFromFlags(flags.model, flags, io.env);
    } catch (error) {
      if (error instanceof AgentError) return refuse(error.toJSON(), json, io);
      throw error;
    }
  }

  let opened;
  try {
    opened = await openForCommand(root, config, io, json, flags.config, trust);
  } catch (error) {
    return refuse(toErrorInfo(error), json, io);
  }
  const { readProposalHeader } = await import('../../agent/editor/proposal.js');
  const { runEditorCommand } = await import('../editor-command.js');
  const header = readProposalHeader(text);
  const { configuredKeys } = await import('../../config/configured.js');
  return runEditorCommand(io, {
    opened,
    configured: configuredKeys(root, flags.config),
    ...defined({ provider }),
    task: header.task ?? `Apply the proposal ${file}.`,
    proposal: { text, file },
    json,
    ...defined({ limits: maxTurns !== undefined ? { maxTurns } : undefined }),
  });
}
