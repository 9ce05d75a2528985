// web-tree-sitter's types name the global EmscriptenModule (from its optional peer @types/emscripten, a
// dependency of ours): the directive makes a consumer's type-check with skipLibCheck: false find it.
/// <reference types="emscripten" preserve="true" />
// Our declarations name Node's globals (Buffer, NodeJS.ProcessEnv) and modules (node:fs): TypeScript 6 and later
// load no @types package a project does not list in `types`, so without this directive a consumer on TypeScript 7
// gets "Cannot find name 'Buffer'" (test/package/pack-install.test.ts). @types/node is a dependency of ours.
/// <reference types="node" preserve="true" />
/**
 * editwarden's MCP server as a library (`editwarden/mcp`): the session, the
 * stdio and Streamable HTTP transports, root choice and the tool catalog.
 * The `editwarden mcp` command (flags, messages, exit codes) lives in
 * cli/serve-mcp.ts; this module never prints and never exits.
 */
export { McpSession, type SessionOptions } from './session.js';
export { serveHttp, type HttpServerHandle } from './http.js';
export { serveStdio } from './stdio.js';
export { chooseRoot } from './roots.js';
export { buildCatalog } from './catalog.js';
export { toolsetFor, type Toolset } from '../tools/toolset.js';
