// web-tree-sitter's types name the global EmscriptenModule (from its optional peer @types/emscripten, a
// dependency of ours): the directive makes a consumer's type-check with skipLibCheck: false find it.
/// <reference types="emscripten" preserve="true" />
// Our declarations name Node's globals (Buffer, NodeJS.ProcessEnv) and modules (node:fs): TypeScript 6 and later
// load no @types package a project does not list in `types`, so without this directive a consumer on TypeScript 7
// gets "Cannot find name 'Buffer'" (test/package/pack-install.test.ts). @types/node is a dependency of ours.
/// <reference types="node" preserve="true" />
/**
 * The public library API of editwarden (docs/library.md), curated: every
 * name here is one a user is meant to call or type, and
 * test/package/public-api.test.ts pins the list, so an internal exported by
 * accident fails a test. Nothing that writes without a transaction
 * (atomic writes, the lock, the journal, the raw disk writer) and no engine
 * internals (matchers, windows, tables) are exported. The MCP server is the
 * `editwarden/mcp` entry.
 */

// Errors: every refusal is an EditwardenError with a stable code.
export { EditwardenError, ErrorCode, isEditwardenError, toErrorInfo, type ErrorInfo } from './errors.js';

// The one way in: a workspace whose every write is a checkpointed, journaled transaction.
export { openWorkspace, openReadOnly, type OpenWorkspaceOptions, type OpenedWorkspace, type RecoveryNotice } from './workspace/open.js';
export { openProject, type Project, type OpenedProject, type OpenProjectOptions, type OpenedParts } from './host/project.js';
export type { FileView, ReadView, WriteTransaction } from './workspace/view.js';
export type { Workspace, WorkspaceOptions, FileSnapshot, FileWrite, PathInfo } from './workspace/workspace.js';
export type { ResolvedPath } from './workspace/paths.js';
export { OverlayView, type OverlayChange, type OverlayOptions } from './workspace/overlay.js';

// Transactions, checkpoints and undo.
export {
  beginTransaction,
  type Transaction,
  type TransactionLayer,
  type TransactionOptions,
  type TransactionState,
  type FailurePolicy,
  type TransactionVerifyHook,
  type TransactionVerifyOutcome,
  type TransactionVerifyResult,
  type RollbackResult,
} from './workspace/transaction.js';
export type { CheckpointService, CreateOptions, RestoreOptions } from './workspace/checkpoints/service.js';
export type { CheckpointScope, CheckpointSummary, CheckpointChange, Manifest, RestoreResult, PruneResult } from './workspace/checkpoints/types.js';
export { UndoHistory, type Change, type StepResult, type StepView } from './workspace/checkpoints/history.js';
export { undoSelected, redoSelected, groupSteps, type UndoSelection, type StepGroup } from './workspace/checkpoints/undo-select.js';
export { parseDuration } from './workspace/checkpoints/prune.js';

// Edit requests, and the formats a model's reply may use.
export { DEFAULT_EDIT_OPTIONS } from './edit/types.js';
export type { EditRequest, EditAction, EditOptions, EditResult, ResultStatus, MatchStrategy, RequestSource, EngineHooks } from './edit/types.js';
export { editRequestFromArgs, parseEditRequestJson, EDIT_MODES } from './edit/request-json.js';
export {
  parseEdits,
  parseFormat,
  detectFormat,
  renderChange,
  ActiveEditStreamParser,
  FORMAT_NAMES,
  type ParsedEdits,
  type ParseResult,
  type ParseOptions,
  type FormatName,
  type ActiveEditEvent,
  type FileChange,
} from './formats/index.js';

// The pure core: text in, results out, no disk.
export { planFile, type FilePlan } from './edit/engine.js';
export { applyHunks, type HunkApplication } from './edit/hunks.js';
export { unifiedDiff } from './edit/diff.js';
export { decodeText } from './edit/text.js';

// Applying requests and replies to a workspace.
export { applyRequests, commit, plan, type ApplyOptions, type ApplyOutcome, type Committed, type Plan, type PlanOptions } from './apply/pipeline.js';
export { applyReply, planReply, type ApplyReplyOptions, type ReplyOutcome, type ReplyPlan } from './apply/apply-reply.js';

// Configuration.
export { defaultConfig, parseConfig, type Config } from './config/config.js';
export { loadConfig, inspectConfig, type ConfigInspection } from './config/load.js';
export { trustFile, revokeFile, listTrusted, type TrustRecord, type TrustState } from './config/trust-store.js';

// Verification.
export { runCommand, type RunCommandOptions, type CommandResult } from './verify/runner.js';
export { verify, verifyFailure, type VerifyOptions, type VerifyResult, type VerifyKind } from './verify/verifier.js';
export { detectProject, type Detection } from './verify/detect.js';

// Tools and the runner every call goes through.
export { ToolRunner, approveAll, type ToolRunnerStart, type ToolRunnerOptions, type RunSummary, type ApprovalHook, type CallRecord } from './tools/runner.js';
export { Run, type RunStart, type RunSettlement } from './runs/run.js';
export type { RunOutcome, RunStatus } from './runs/outcome.js';
export { runProfile, editorFlavour, type RunProfile, type RunMode, type ApprovalPolicy, type EditorFlavour } from './runs/profile.js';
export { BUILTIN_TOOLS, exportToolSchemas } from './tools/registry.js';
export type { AnyTool, ToolContext, ToolResult } from './tools/types.js';

// The agent, the controlled edit and the Editor.
export type { ModelProvider } from './agent/providers/types.js';
export { createProvider, parseModelSpec } from './agent/providers/spec.js';
export { runAgent, type AgentEvent, type AgentOutcome, type AgentStatus } from './agent/loop.js';
export { ControlledEditSession, type ControlledEditOutcome, type ControlledSessionOptions } from './agent/controlled.js';
export { runEditor, type RunEditorOptions, type EditorResult, type EditorRunEvent } from './agent/editor/editor.js';
export { applyProposal } from './agent/editor/proposal.js';
