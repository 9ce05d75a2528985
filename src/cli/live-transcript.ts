/**
 * The live transcript for people: the model's text as it streams, each tool
 * call with its outcome (diffs coloured, errors with their hint), the
 * active-edit directives as they are recognised, and after every step the
 * constraint status line (files · lines · tokens · time). It writes to the
 * stream it is given and nowhere else; machines read transcript.jsonl.
 */
import { paint, paintDiff } from './output.js';
import type { AgentEvent } from '../agent/loop.js';
import { taskCompletionTool } from '../tools/control.js';
import { executeCommandTool } from '../tools/execute-command.js';

export interface RenderOptions {
  color: boolean;
  /** The constraint status line, printed after each step (omit off a terminal to keep logs short). */
  status?: () => string;
  /** Show the diff of applied writes (interactive mode already showed it at approval). */
  diffs?: boolean;
}

const MAX_OUTPUT_LINES = 60;

function clip(text: string, max = MAX_OUTPUT_LINES): string {
  const lines = text.split('\n');
  return lines.length <= max ? text : `${lines.slice(0, max).join('\n')}\n… (${lines.length - max} more lines)`;
}

export function createLiveRenderer(out: { write(chunk: string): unknown }, options: RenderOptions): (event: AgentEvent) => void {
  const c = options.color;
  let atLineStart = true;
  let inText = false;
  const line = (text: string): void => {
    if (!atLineStart) out.write('\n');
    out.write(`${text}\n`);
    atLineStart = true;
  };
  const status = (): void => {
    if (options.status) line(paint(c, 'dim', options.status()));
  };
  return (event) => {
    switch (event.type) {
      case 'turn-start':
        inText = false;
        break;
      case 'text':
        if (!inText) {
          if (!atLineStart) out.write('\n');
          out.write(paint(c, 'cyan', 'agent: '));
          inText = true;
        }
        out.write(event.delta);
        atLineStart = event.delta.endsWith('\n');
        break;
      case 'tool-call-streaming':
        break;
      case 'turn-end': {
        const u = event.usage;
        line(paint(c, 'dim', `  [turn ${event.turn}: ${u.input} in / ${u.output} out tokens${u.estimated ? ' (estimated)' : ''}]`));
        break;
      }
      case 'directive': {
        const d = event.directive;
        const where = d.path ?? '(no file)';
        if ('error' in d) line(`${paint(c, 'yellow', '◆')} directive #${d.index + 1} ${where}: ${paint(c, 'red', d.error.code)} ${d.error.message}`);
        else line(`${paint(c, 'cyan', '◆')} directive #${d.index + 1} ${where} (${String(d.args.mode ?? d.args.ast_action ?? 'edit')})`);
        // The model's text may go on after the directive: it gets its own prefix again.
        inText = false;
        break;
      }
      case 'call-start':
        line(`${paint(c, 'bold', '→')} ${event.description}`);
        break;
      case 'call-end': {
        const mark = event.status === 'ok' ? paint(c, 'green', '✓') : event.status === 'refused' ? paint(c, 'red', '⛔ refused') : event.status === 'declined' ? paint(c, 'yellow', '✗ declined') : paint(c, 'red', `✗ ${event.status}`);
        const files = event.record && event.record.files.length > 0 ? ` ${event.record.files.join(', ')} +${event.record.lines_added} -${event.record.lines_removed}` : '';
        line(`  ${mark}${files}`);
        if (event.status === 'ok') {
          const writes = event.record !== undefined && event.record.files.length > 0;
          if (writes && options.diffs !== false) {
            const at = event.output.indexOf('diff --git');
            if (at >= 0) line(paintDiff(c, clip(event.output.slice(at).trimEnd())));
          } else if (!writes && event.tool !== taskCompletionTool.name) {
            const first = event.output.split('\n')[0] ?? '';
            const count = event.output.split('\n').length;
            line(paint(c, 'dim', `  ${first.slice(0, 120)}${count > 1 ? ` … (${count} lines)` : ''}`));
          }
        } else if (event.error) {
          line(`  ${paint(c, 'red', event.error.code)} ${event.error.message}`);
          line(`  ${paint(c, 'dim', 'hint:')} ${event.error.hint}`);
        }
        // A failed command shows its output: the person sees why, not only that.
        if (event.status !== 'ok' && event.tool === executeCommandTool.name && event.output.trim() !== '') line(clip(event.output.trimEnd(), 30));
        status();
        break;
      }
      case 'violation':
        line(`${paint(c, 'red', `${event.violation.type} violation:`)} ${event.violation.message}`);
        line(`  ${paint(c, 'dim', 'hint:')} ${event.violation.hint}`);
        break;
      case 'stop':
        line(`${paint(c, 'bold', '■')} ${event.status}: ${event.reason}`);
        break;
      default: {
        const never: never = event;
        throw new Error(`unknown event ${JSON.stringify(never)}`);
      }
    }
  };
}
