/**
 * rustc and cargo (human format):
 *
 *   error[E0308]: mismatched types
 *    --> src/main.rs:3:18
 *   warning: unused variable: `unused`
 *    --> src/main.rs:2:9
 *   error: could not compile `rs` (bin "rs") due to 2 previous errors   (summary: skipped)
 *
 * The location is the first " --> " line below the head; cargo's summaries
 * ("generated 1 warning", "could not compile", "aborting due to") are noise.
 */
import { DiagnosticTool, makeDiagnostic, outputLines, toInt, type Diagnostic } from './types.js';

const HEAD = /^(error|warning)(?:\[([A-Z]\d{4})\])?: (.+)$/;
const ARROW = /^\s*--> (.+?):(\d+):(\d+)$/;
const SUMMARY = /^(could not compile|aborting due to|test failed, to rerun|`[^`]+` \([^)]*\) generated \d+ warnings?|build failed|\d+ warnings? emitted)/;

export function parseRustc(text: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const lines = outputLines(text);
  for (let i = 0; i < lines.length; i++) {
    const m = HEAD.exec(lines[i] as string);
    if (!m) continue;
    const message = m[3] as string;
    if (SUMMARY.test(message)) continue;
    const d = makeDiagnostic({ tool: DiagnosticTool.RUSTC, severity: m[1] === 'error' ? 'error' : 'warning', message, output_line: i });
    if (m[2]) d.code = m[2];
    // The arrow follows the head directly; a blank line or the next head ends the search.
    for (let j = i + 1; j < lines.length && j <= i + 3; j++) {
      const a = ARROW.exec(lines[j] as string);
      if (a) {
        d.file = a[1] as string;
        d.line = toInt(a[2]);
        d.column = toInt(a[3]);
        break;
      }
      if (HEAD.test(lines[j] as string)) break;
    }
    out.push(d);
  }
  return out;
}
