/** The public library API of editwarden. Interfaces (CLI, MCP) use the same exports. */
export * from './errors.js';
export * from './edit/types.js';
export * from './edit/text.js';
export * from './workspace/paths.js';
export * from './workspace/atomic.js';
export * from './workspace/workspace.js';
export * from './config/config.js';
export * from './edit/engine.js';
export * from './edit/diff.js';
export * from './edit/match.js';
export * from './edit/request-json.js';
export * from './apply/apply-requests.js';
