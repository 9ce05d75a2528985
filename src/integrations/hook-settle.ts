/**
 * A hooked native edit whose PostToolUse runs in the background (Claude
 * Code's `"async": true`: the tool call does not wait for it, issue 44) may
 * reach editwarden after the client's next tool call has begun — or never,
 * when the client exits first (`claude -p` ends the hooks still running).
 * Its record must still land, in order, with only its own change in it.
 *
 * So the pre-tool hook records what it planned: for every path the call
 * touches, the sha256 of the bytes the client's tool will leave there (or
 * absence) — `plannedAfter`, kept in the checkpoint's origin. Anyone may then
 * settle a pending call (a hook checkpoint without an after record) the
 * moment the disk holds exactly that: the session's next pre-tool hook
 * (before it checkpoints anything, so the next call's change is never
 * counted as this one's), the client's Stop hook (the end of a turn, before
 * `claude -p` exits), or the call's own post hook. A post that comes after
 * its call was settled finds the after record and records nothing again.
 *
 * Must never: confirm a call whose planned bytes are not on disk (an edit the
 * person declined, then made differently by hand, is not the agent's step —
 * steps.ts); that is left to the call's own post hook, which knows the tool ran.
 */
import type { Project } from '../host/project.js';
import type { FileWrite, Workspace } from '../workspace/workspace.js';
import { sha256 } from '../workspace/workspace.js';
import { StepRecords } from '../workspace/checkpoints/steps.js';
import type { Manifest } from '../workspace/checkpoints/types.js';
import type { SessionKey } from '../runs/ledger.js';

/** How many of the newest checkpoints a settle looks through (hooks checkpoint right before their tool runs). */
const LOOK_BACK = 50;

/** What a planned call leaves at each path it writes: the sha256 of the bytes, or '' for a deleted file (last write wins). */
export function plannedAfter(ws: Workspace, writes: readonly FileWrite[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const w of writes) {
    const rel = ws.resolve(w.path).relative;
    out[rel] = w.kind === 'delete' ? '' : sha256(Array.isArray(w.bytes) ? Buffer.concat(w.bytes as readonly Uint8Array[]) : (w.bytes as Uint8Array));
  }
  return out;
}

/** Whether the disk holds exactly what the call planned to leave. */
function holdsPlan(ws: Workspace, planned: Record<string, string>): boolean {
  const paths = Object.keys(planned);
  if (paths.length === 0) return false;
  for (const rel of paths) {
    let now: string;
    try {
      const snap = ws.read(rel);
      now = snap === null ? '' : snap.hash;
    } catch {
      return false;
    }
    if (now !== planned[rel]) return false;
  }
  return true;
}

/**
 * The session's pending hook calls, oldest first: hook checkpoints of `client` and `session` with a plan and no
 * after record, newer than the session's newest settled one (those before it were settled in order or never ran).
 */
function pendingCalls(project: Project, client: string, session: string): Manifest[] {
  const service = project.transactions.checkpoints;
  const steps = new StepRecords(service);
  const settled = steps.ids();
  // A hook's checkpoint is a files checkpoint: the workspace ones (a guarded command's index, megabytes) are never read.
  const ids = service.manifests.ids('files');
  const out: Manifest[] = [];
  for (let i = ids.length - 1; i >= 0 && i >= ids.length - LOOK_BACK; i--) {
    const id = (ids[i] as { id: string }).id;
    let m: Manifest;
    try {
      m = service.get(id);
    } catch {
      continue;
    }
    if (m.origin.kind !== 'hook' || m.origin.client !== client || m.origin.session !== session) continue;
    if (settled.has(id)) break;
    if (m.origin.plannedAfter !== undefined) out.push(m);
  }
  return out.reverse();
}

/**
 * Settles every pending call of the session whose planned bytes are on disk: each is confirmed as an undo step and
 * recorded by `record` (the same record its post hook would have written). Under the root lock, so a post hook
 * deciding in its own process cannot record the same call at the same time. Returns the ids settled.
 */
export function settlePending(project: Project, key: SessionKey, record: (checkpoint: Manifest) => void): string[] {
  const service = project.transactions.checkpoints;
  return service.lock.with(() => {
    const done: string[] = [];
    for (const m of pendingCalls(project, key.client, key.session)) {
      if (m.origin.kind !== 'hook' || m.origin.plannedAfter === undefined || !holdsPlan(project.ws, m.origin.plannedAfter)) continue;
      record(m);
      done.push(m.id);
    }
    return done;
  });
}

/** Whether hook checkpoint `id` is settled already (confirmed by a settle or by its post hook): its post records nothing again. */
export function isSettled(project: Project, id: string): boolean {
  return new StepRecords(project.transactions.checkpoints).read(id) !== null;
}
