/**
 * `editwarden demo`: the narrated tour on a sample project (see src/cli/demo/).
 */
import type { Command } from 'commander';
import { refuseCommand, useColor, writeJson, type Io } from '../output.js';
import { ErrorCode, ExitCode } from '../../errors.js';
import { defined } from '../../defined.js';

export function registerDemo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description('Narrated demo on a built-in sample project (CMake C++, or TypeScript when cmake is missing). No API key needed.')
    .option('--sample <kind>', 'cmake or ts (default: cmake when cmake and a C++ compiler exist)')
    .option('--dir <dir>', 'work in this (empty) folder instead of a new temp folder')
    .option('--clean', 'remove the demo folder afterwards')
    .option('--json', 'print a JSON summary at the end')
    .option('--edits-only', 'only the edit story: no agent run and no Editor session')
    .action(async (flags: { sample?: string; dir?: string; clean?: boolean; json?: boolean; editsOnly?: boolean }) => {
      const { runDemo } = await import('../demo/demo.js');
      if (flags.sample !== undefined && flags.sample !== 'cmake' && flags.sample !== 'ts') {
        setExit(refuseCommand({ code: ErrorCode.USAGE, message: `--sample must be cmake or ts, not ${JSON.stringify(flags.sample)}.`, hint: 'Run `editwarden demo --sample ts` or `--sample cmake`.' }, flags.json === true, io));
        return;
      }
      let result;
      try {
        result = await runDemo(io, {
          color: useColor(io),
          ...defined({ sample: flags.sample ? (flags.sample as 'cmake' | 'ts') : undefined, dir: flags.dir || undefined }),
          keep: flags.clean !== true,
          editsOnly: flags.editsOnly === true,
        });
      } catch (error) {
        setExit(refuseCommand(error, flags.json === true, io));
        return;
      }
      if (flags.json) writeJson(io, result);
      setExit(result.ok ? ExitCode.OK : ExitCode.REJECTED);
    });
}
