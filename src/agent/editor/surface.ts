/**
 * What an Editor session works on: the project itself, or (a dry run) an
 * overlay over it whose changes become a proposal. Both answer the same
 * questions — the workspace the tools use, the file source the scouts read,
 * where records go, which files changed and by how much — so the session's
 * steps are written once and never ask which one they have. The overlay
 * surface never writes a project file; the disk surface writes only through
 * the tools it hands to the ToolRunner.
 */
import { unifiedDiff } from '../../edit/diff.js';
import { decodeText } from '../../edit/text.js';
import type { AnyTool } from '../../tools/types.js';
import { OverlayView } from '../../workspace/overlay.js';
import type { TransactionLayer } from '../../workspace/transaction.js';
import type { FileView } from '../../workspace/view.js';
import type { Workspace } from '../../workspace/workspace.js';
import { workspaceSource, type FileSource } from './file-source.js';
import type { RecordTarget } from './records.js';
import type { FileChangeEntry } from './state.js';
import { overlayReadTools } from './tools.js';

export interface EditorSurface {
  /** The workspace the session's tools read and write: the project, or the overlay over it. */
  readonly ws: FileView;
  readonly source: FileSource;
  /** Where context snapshots, the summary and the stuck report go. */
  readonly target: RecordTarget;
  /** The transactions the session's writes join; null on an overlay (nothing reaches the disk). */
  readonly transactions: TransactionLayer | null;
  /** Notes what a file holds before the session first writes it, so the summary reports the net change. */
  capture(requested: string): void;
  /** Every file the session changed, net of churn. */
  changedFiles(): FileChangeEntry[];
  /** The proposal: one unified diff of the overlay ('' on disk). */
  diff(): string;
  /** Tools that must see this surface instead of the disk (the overlay's list_files and search_files). */
  readTools(): AnyTool[];
}

/** The project's own files: writes go through the ToolRunner and its transactions. */
export function diskSurface(ws: Workspace, transactions?: TransactionLayer): EditorSurface {
  // What each file held before the session first wrote it: the summary reports the net change, not the churn.
  const originals = new Map<string, string | null>();
  const textOf = (rel: string): string | null => {
    const snap = ws.read(rel);
    return snap ? decodeText(snap.bytes, rel).text : null;
  };
  return {
    ws,
    source: workspaceSource(ws),
    target: { kind: 'project', ws },
    transactions: transactions ?? ws.transactions,
    capture(requested) {
      try {
        const rel = ws.resolve(requested).relative;
        if (!originals.has(rel)) originals.set(rel, textOf(rel));
      } catch {
        // A path the sandbox refuses is never written; one that is not text has no line count.
      }
    },
    changedFiles() {
      const out: FileChangeEntry[] = [];
      for (const [rel, before] of [...originals.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        let after: string | null;
        try {
          after = textOf(rel);
        } catch {
          continue;
        }
        if (after === before) continue;
        const d = unifiedDiff({ oldPath: rel, newPath: rel, before, after });
        out.push({ path: rel, added: d.added, removed: d.removed, created: before === null });
      }
      return out;
    },
    diff: () => '',
    readTools: () => [],
  };
}

/** A dry run: an overlay over the project; records go to the run folder, and the changes become the proposal. */
export function overlaySurface(base: Workspace, runDir: string): EditorSurface {
  const overlay = new OverlayView(base);
  const source = workspaceSource(overlay, overlay);
  return {
    ws: overlay,
    source,
    target: { kind: 'run-folder', runDir, root: base.root },
    transactions: null,
    capture: () => undefined,
    changedFiles: () => overlay.fileDiffs().map((f) => ({ path: f.path, added: f.added, removed: f.removed, created: f.kind === 'created' })),
    diff: () => overlay.diff(),
    readTools: () => overlayReadTools(source, (p) => (p === '.' ? '' : overlay.resolve(p).relative)),
  };
}
