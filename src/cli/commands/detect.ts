/**
 * `editwarden detect`: what kind of project this is and which commands would
 * build and test it — what `editwarden verify` will run. Reads only.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import { toErrorInfo, ExitCode } from '../../errors.js';
import { openReadOnly } from '../../workspace/open.js';
import { detectProject } from '../../verify/detect.js';
import { detectSandbox } from '../../sandbox/detect.js';
import { paint, useColor, writeJson, type Io, refuseCommand } from '../output.js';

interface DetectFlags {
  root?: string;
  config?: string;
  json?: boolean;
}

export function registerDetect(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('detect')
    .description('Show the project kinds found and the build and test commands verify would run.')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--config <file>', 'config file (default: <root>/.editwarden.yml)')
    .option('--json', 'print the JSON result')
    .action((flags: DetectFlags) => {
      setExit(runDetect(flags, io));
    });
}

function runDetect(flags: DetectFlags, io: Io): number {
  let root: string;
  let configured: { build?: string | undefined; test?: string | undefined };
  let sandboxEnabled: boolean;
  try {
    root = openReadOnly(flags.root ?? process.cwd()).root;
    const config = loadConfig(root, flags.config);
    configured = config.verify;
    sandboxEnabled = config.sandbox.enabled;
  } catch (error) {
    const info = toErrorInfo(error);
    return refuseCommand(info, flags.json === true, io);
  }
  const detection = detectProject(root);
  // What verify will actually run: config first, detection second.
  const effective = {
    build: configured.build ?? detection.build,
    build_source: configured.build ? 'config' : detection.build ? 'detected' : null,
    test: configured.test ?? detection.test,
    test_source: configured.test ? 'config' : detection.test ? 'detected' : null,
  };
  // Which OS sandbox commands (verify, execute_command) will run in.
  const found = detectSandbox();
  const sandbox = sandboxEnabled ? found : { kind: 'none' as const, detail: 'turned off by sandbox.enabled: false in the config', fix: 'Remove sandbox.enabled: false.' };
  if (flags.json) {
    writeJson(io, { ok: true, ...detection, effective, sandbox });
    return ExitCode.OK;
  }
  const color = useColor(io);
  const out = (line: string) => io.stdout.write(`${line}\n`);
  out(`root:      ${root}`);
  out(`kinds:     ${detection.kinds.length > 0 ? detection.kinds.join(', ') : paint(color, 'yellow', 'none recognised')}`);
  out(`build:     ${effective.build ?? paint(color, 'dim', '(none)')}${effective.build_source === 'config' ? '  (from .editwarden.yml)' : ''}`);
  out(`test:      ${effective.test ?? paint(color, 'dim', '(none)')}${effective.test_source === 'config' ? '  (from .editwarden.yml)' : ''}`);
  out(`framework: ${detection.framework ?? paint(color, 'dim', '(unknown)')}`);
  out(`sandbox:   ${sandbox.kind === 'none' ? paint(color, 'yellow', `none — ${sandbox.detail}`) : `${sandbox.kind} — ${sandbox.detail}`}${sandbox.fix ? `\n           fix: ${sandbox.fix}` : ''}`);
  for (const p of detection.projects) {
    const pm = p.packageManager ? ` [${p.packageManager}]` : '';
    out(`  ${paint(color, 'bold', p.kind)}${pm}: build ${p.build ?? '-'} · test ${p.test ?? '-'}${p.framework ? ` (${p.framework})` : ''} · from ${p.evidence.join(', ')}`);
  }
  return ExitCode.OK;
}
