/**
 * Checkpoint references as people and agents type them: a full id, a unique
 * id prefix, `latest`, or a checkpoint's name — resolved to exactly one id
 * or refused (never a guess: a restore of the wrong checkpoint loses work).
 * Also the one order every listing uses (CLI and MCP): newest first.
 * It only reads the manifest store; it never changes a checkpoint.
 */
import { EditwardenError, ErrorCode } from '../../errors.js';
import { unknownCheckpoint } from './manifest-store.js';
import type { CheckpointService } from './service.js';
import type { CheckpointSummary } from './types.js';

/** The name that always means the newest checkpoint. */
const LATEST = 'latest';

/** Shortest prefix accepted: "2" would match every checkpoint of the millennium. */
const MIN_PREFIX = 4;

/** Every listing's order: newest first, so the top line is `latest`. */
function newestFirst<T extends { id: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** Checkpoints, newest first (what `checkpoint list` and `checkpoint_list` show). */
export function listNewestFirst(service: CheckpointService): CheckpointSummary[] {
  return newestFirst(service.list());
}

/**
 * Resolves `ref` to one checkpoint id. Order: exact id, `latest`, unique id
 * prefix, then name (unique among checkpoints). Ambiguity is refused with
 * the candidates named, so the caller can pick.
 */
export function resolveCheckpointRef(service: CheckpointService, ref: string): string {
  const wanted = ref.trim();
  const ids = service.manifests.ids().map((e) => e.id);
  if (ids.includes(wanted)) return wanted;
  if (wanted === LATEST) {
    const newest = ids[ids.length - 1];
    if (newest === undefined) {
      throw new EditwardenError({ code: ErrorCode.NOT_FOUND, message: 'There are no checkpoints yet, so "latest" names none.', hint: 'Take one with `editwarden checkpoint create`, or make an edit through editwarden first.' });
    }
    return newest;
  }
  if (wanted.length >= MIN_PREFIX) {
    const byPrefix = ids.filter((id) => id.startsWith(wanted));
    if (byPrefix.length === 1) return byPrefix[0] as string;
    if (byPrefix.length > 1) throw ambiguous(wanted, 'id prefix', byPrefix);
  }
  const byName = service
    .list()
    .filter((c) => c.name === wanted)
    .map((c) => c.id);
  if (byName.length === 1) return byName[0] as string;
  if (byName.length > 1) throw ambiguous(wanted, 'name', byName);
  throw unknownCheckpoint(wanted);
}

function ambiguous(ref: string, what: string, ids: string[]): EditwardenError {
  const shown = newestFirst(ids.map((id) => ({ id })))
    .slice(0, 5)
    .map((c) => c.id);
  return new EditwardenError({
    code: ErrorCode.AMBIGUOUS,
    message: `${JSON.stringify(ref)} is the ${what} of ${ids.length} checkpoints (${shown.join(', ')}${ids.length > shown.length ? ', …' : ''}).`,
    hint: 'Give more of the id (or the whole id) so that exactly one checkpoint matches; `editwarden checkpoint list` shows them.',
  });
}
