/**
 * The loop's one extension point. After each tool call — a call the runner
 * recorded, or a malformed one that never reached it — the loop asks
 * `afterCall` whether the run goes on or stops, and with what ending. A mode
 * expresses itself here and nowhere else in the loop: controlled mode stops
 * once its one edit and build happened (and answers a malformed edit_file as
 * that edit), the headless and interactive modes and the Editor go on. The
 * loop never asks which mode it serves.
 */
import type { ErrorInfo } from '../../errors.js';
import type { RunOutcome } from '../../runs/outcome.js';
import type { CallRecord } from '../../tools/runner.js';
import type { ModelToolCall } from '../providers/types.js';

/** One call as the loop saw it: the runner's record, or (record null) why its arguments were refused before any tool ran. */
export type CallSeen = { call: ModelToolCall; record: CallRecord; malformed: null } | { call: ModelToolCall; record: null; malformed: ErrorInfo };

/**
 * What the run does next. `answer` (malformed calls only) replaces the refusal the model would read: the mode
 * took the call as an attempt that failed on its merits, so it is not counted as malformed. `stop` ends the run
 * with this ending; the calls after it in the same turn are skipped.
 */
type CallVerdict = { next: 'continue'; answer?: string } | { next: 'stop'; ending: RunOutcome; answer?: string };

export type AfterCall = (seen: CallSeen) => CallVerdict | Promise<CallVerdict>;
