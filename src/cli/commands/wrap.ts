/**
 * `editwarden wrap [--root DIR] [--pass-env NAME]… [--model-url URL]… [--allow-host HOST[:PORT]]… [--step-after 10s] [--report FILE] -- <agent command…>`:
 * an agent with no hooks run whole in the sandbox with the terminal
 * attached (integrations/wrap.ts does the work). Its exit code is this
 * process's; editwarden speaks on stderr only — a line when it starts, a
 * line per protected path put back, and at the end the session's events as
 * `editwarden log` shows them with the report's headline, or the whole
 * report in a file (`--report x.md` / `x.html`, the report's own renderers).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ExitCode, exitCodeFor, toErrorInfo } from '../../errors.js';
import { DEFAULT_STEP_AFTER_MS, runWrap } from '../../integrations/wrap.js';
import { eventLine, eventsInScope, headline, summarize } from '../../report/event-summary.js';
import { renderHtml } from '../../report/html.js';
import { renderMarkdown } from '../../report/markdown.js';
import { parseDuration } from '../../workspace/checkpoints/prune.js';
import { formatError, useColor, type Io } from '../output.js';
import { loadEventLog } from './event-log.js';
import { reportInput } from './report.js';

interface Flags {
  root?: string;
  passEnv?: string[];
  allowHost?: string[];
  modelUrl?: string[];
  stepAfter: string;
  report?: string;
  config?: string;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function registerWrap(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('wrap')
    .description(
      'Run an agent that has no hooks (Aider, your own script) whole inside the sandbox, terminal attached: the project writable, the protected set read-only, only the model endpoint reachable, every change recorded and undoable.',
    )
    .option('--root <dir>', 'the project root (default: current folder)')
    .option('--pass-env <name>', "pass this environment variable to the agent (its model key: --pass-env ANTHROPIC_API_KEY); repeat for more. Everything else goes through the sandbox's allowlist", collect)
    .option('--model-url <url>', "the agent's model endpoint (https://api.anthropic.com, http://127.0.0.1:11434/v1): its host and port are the only network the agent gets, through editwarden's filtering proxy; repeat for more", collect)
    .option('--allow-host <host[:port]>', 'one more host the agent may reach through the proxy (the grammar of sandbox.network: api.example.com, *.example.com, 10.0.0.5:8080); repeat for more', collect)
    .option('--step-after <duration>', 'quiet time that ends an undo step (10s, 2m); 0s: the whole run is one step', `${DEFAULT_STEP_AFTER_MS / 1000}s`)
    .option('--report <file>', 'write the report of the session to this file at the end (.md or .html)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml), relative to the root')
    .argument('<command...>', 'the agent command, after --')
    .addHelpText(
      'after',
      `
What wrap cannot do that hooks can (docs/wrap.md): the agent is refused by the
operating system, not by editwarden — the model sees "Read-only file system"
or "Connection refused", never an E_ code with a hint — and no limit applies
per call. Prefer \`editwarden init <client>\` where the agent has hooks.
After the run, \`editwarden undo\` takes back its last step.

Examples:
  $ editwarden wrap --pass-env ANTHROPIC_API_KEY --model-url https://api.anthropic.com -- aider --model sonnet
  $ editwarden wrap --model-url http://127.0.0.1:11434 --step-after 30s -- ./my-agent.py`,
    )
    .action(async (words: string[], flags: Flags) => setExit(await wrap(io, words, flags)));
}

async function wrap(io: Io, argv: string[], flags: Flags): Promise<number> {
  const color = useColor(io, 'stderr');
  const say = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  let stepAfterMs: number;
  try {
    stepAfterMs = parseDuration(flags.stepAfter);
  } catch (error) {
    const info = toErrorInfo(error);
    say(formatError(info, color));
    return exitCodeFor(info.code);
  }
  const root = path.resolve(flags.root ?? process.cwd());
  const outcome = await runWrap(
    {
      root,
      cwd: process.cwd(),
      argv,
      passEnv: flags.passEnv ?? [],
      allowHosts: flags.allowHost ?? [],
      modelUrls: flags.modelUrl ?? [],
      stepAfterMs,
      ...(flags.config !== undefined ? { configFile: path.resolve(root, flags.config) } : {}),
    },
    { say, env: io.env },
  );
  if (outcome.exitCode === null && outcome.refusal) {
    say(formatError(outcome.refusal, color));
    return exitCodeFor(outcome.refusal.code);
  }
  endReport(io, root, outcome.session, flags.report);
  if (outcome.refusal) say(formatError(outcome.refusal, color));
  return outcome.exitCode ?? ExitCode.REJECTED;
}

/** The session's events as `editwarden log` lists them and the report's headline; the whole report into `file` when asked. */
function endReport(io: Io, root: string, session: string, file: string | undefined): void {
  try {
    const loaded = loadEventLog(root);
    const events = eventsInScope(loaded.log.events, { session });
    io.stderr.write(`[editwarden] wrap session ${session}:\n`);
    for (const e of events) {
      const line = eventLine(e);
      io.stderr.write(`  ${line.kind.padEnd(10)} ${line.text}\n`);
    }
    io.stderr.write(`  ${headline(summarize(events.map((event) => ({ event, diff: null }))))}\n`);
    if (events.some((e) => e.kind === 'edit')) io.stderr.write('  `editwarden undo` takes back the last step; `editwarden report --session ' + session + '` shows every diff.\n');
    if (file !== undefined) {
      const input = reportInput(loaded, { session });
      fs.writeFileSync(path.resolve(file), file.endsWith('.html') ? renderHtml(input) : renderMarkdown(input));
      io.stderr.write(`  report: ${path.resolve(file)}\n`);
    }
  } catch (error) {
    io.stderr.write(`[editwarden] the report of wrap session ${session} could not be made: ${toErrorInfo(error).message}\n`);
  }
}
