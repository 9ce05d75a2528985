/**
 * `editwarden demo`: the narrated tour on a sample project (see src/cli/demo/).
 */
import type { Command } from 'commander';
import { ExitCode } from '../exit-codes.js';
import { formatError, useColor, writeJson, type Io } from '../output.js';
import { ErrorCode, toErrorInfo } from '../../errors.js';

export function registerDemo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description('Narrated demo on a built-in sample project (CMake C++, or TypeScript when cmake is missing). No API key needed.')
    .option('--sample <kind>', 'cmake or ts (default: cmake when cmake and a C++ compiler exist)')
    .option('--dir <dir>', 'work in this (empty) folder instead of a new temp folder')
    .option('--clean', 'remove the demo folder afterwards')
    .option('--json', 'print a JSON summary at the end')
    .action(async (flags: { sample?: string; dir?: string; clean?: boolean; json?: boolean }) => {
      const { runDemo } = await import('../demo/demo.js');
      if (flags.sample !== undefined && flags.sample !== 'cmake' && flags.sample !== 'ts') {
        io.stderr.write('--sample must be cmake or ts\n');
        setExit(ExitCode.USAGE);
        return;
      }
      let result;
      try {
        result = await runDemo(io, {
          color: useColor(io),
          ...(flags.sample ? { sample: flags.sample as 'cmake' | 'ts' } : {}),
          ...(flags.dir ? { dir: flags.dir } : {}),
          keep: flags.clean !== true,
        });
      } catch (error) {
        const info = toErrorInfo(error);
        io.stderr.write(`${formatError(info, useColor(io, 'stderr'))}\n`);
        setExit(info.code === ErrorCode.USAGE ? ExitCode.USAGE : ExitCode.REJECTED);
        return;
      }
      if (flags.json) writeJson(io, result);
      setExit(result.ok ? ExitCode.OK : ExitCode.REJECTED);
    });
}
