/**
 * `editwarden ast list <file>` and `editwarden ast show <file> <path>`: what
 * an agent can address with an AST path, and the exact text one path covers.
 * Thin: read the file through the workspace sandbox, ask ast/, print.
 * tree-sitter is imported inside the actions, never when the CLI starts.
 */
import type { Command } from 'commander';
import { EditwardenError, ErrorCode, toErrorInfo, ExitCode } from '../../errors.js';
import { decodeText } from '../../edit/text.js';
import { openReadOnly } from '../../workspace/open.js';
import type { AstEntry } from '../../ast/outline.js';
import { paint, useColor, writeJson, type Io, refuseCommand } from '../output.js';
import { greatestOf } from '../../arrays.js';

interface Flags {
  root?: string;
  json?: boolean;
}

function entryJson(e: AstEntry): Record<string, unknown> {
  return {
    path: e.address,
    name: e.name,
    kind: e.kind,
    startLine: e.startLine,
    nodeLine: e.nodeLine,
    endLine: e.endLine,
    start: e.start,
    end: e.end,
  };
}

async function load(flags: Flags, file: string): Promise<{ path: string; text: string; service: import('../../ast/service.js').AstService }> {
  const ws = openReadOnly(flags.root ?? process.cwd());
  const snapshot = ws.read(file);
  if (!snapshot) {
    throw new EditwardenError({ code: ErrorCode.NO_FILE, message: `${file} does not exist.`, hint: 'Check the path (relative to the workspace root).', path: file });
  }
  const { prepareAstHooks } = await import('../../ast/hooks.js');
  const service = await prepareAstHooks([snapshot.path], 'off');
  return { path: snapshot.path, text: decodeText(snapshot.bytes, snapshot.path).text, service };
}

function fail(io: Io, flags: Flags, error: unknown): number {
  const info = toErrorInfo(error);
  return refuseCommand(info, flags.json === true, io);
}

export function registerAst(program: Command, io: Io, setExit: (code: number) => void): void {
  const ast = program.command('ast').description('Inspect the declarations an AST path (`Class-method`) can address.');

  ast
    .command('list')
    .description('Print every addressable path with its kind and line range.')
    .argument('<file>', 'file to outline')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--json', 'print JSON (offsets are in the text with line endings normalised to \\n)')
    .action(async (file: string, flags: Flags) => {
      try {
        const { path, text, service } = await load(flags, file);
        const entries = service.outline(path, text);
        service.dispose();
        if (flags.json) {
          writeJson(io, { ok: true, path, entries: entries.map(entryJson) });
        } else {
          const color = useColor(io);
          const width = greatestOf([4, ...entries.map((e) => e.address.length)]);
          const kindWidth = greatestOf([4, ...entries.map((e) => e.kind.length)]);
          for (const e of entries) {
            const lines = e.startLine === e.endLine ? `${e.startLine}` : `${e.startLine}-${e.endLine}`;
            io.stdout.write(`${paint(color, 'bold', e.address.padEnd(width))}  ${paint(color, 'cyan', e.kind.padEnd(kindWidth))}  ${lines}\n`);
          }
          if (entries.length === 0) io.stdout.write(`${path}: no addressable declarations\n`);
        }
        setExit(ExitCode.OK);
      } catch (error) {
        setExit(fail(io, flags, error));
      }
    });

  ast
    .command('show')
    .description('Print the text an AST path covers (the declaration and the comments that belong to it).')
    .argument('<file>', 'file to look in')
    .argument('<path>', 'AST path, e.g. Greeter-greet or Greeter-twice#2')
    .option('--root <dir>', 'workspace root (default: current folder)')
    .option('--json', 'print JSON')
    .action(async (file: string, astPath: string, flags: Flags) => {
      try {
        const { path, text, service } = await load(flags, file);
        const entry = service.resolve(path, text, astPath);
        service.dispose();
        const lineStart = text.lastIndexOf('\n', entry.start - 1) + 1;
        const shown = text.slice(entry.startsLine ? lineStart : entry.start, entry.end);
        if (flags.json) writeJson(io, { ok: true, path, entry: entryJson(entry), text: shown });
        else io.stdout.write(`${shown}\n`);
        setExit(ExitCode.OK);
      } catch (error) {
        setExit(fail(io, flags, error));
      }
    });
}
