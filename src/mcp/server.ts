/**
 * The MCP server of one session, on the SDK's low-level Server: tools/list
 * and tools/call answered by the McpSession, the client's roots asked for
 * once it is initialised and again whenever it says they changed. JSON
 * Schemas are our own (from the tools' zod schemas) and arguments are
 * checked by the ToolRunner, so a bad argument is a tool result with a code
 * and a hint, not a protocol error. It holds no tool logic.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '../errors.js';
import { markLongLived, settleDurable, takeDurabilityFailure } from '../workspace/durable.js';
import { errorResult, type McpToolResult } from './results.js';
import type { McpSession } from './session.js';

const SERVER_NAME = 'editwarden';
const SERVER_VERSION = '0.1.0';

/**
 * Largest message the server reads. The SDK closes the transport when a
 * message outgrows its buffer (10 MiB by default), which would end the
 * session on one large write_file; this leaves room for files up to the
 * default max_file_bytes (10 MiB) after JSON escaping.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** How long the client may take to answer roots/list before --root is used instead. */
const ROOTS_TIMEOUT_MS = 5_000;

const INSTRUCTIONS = [
  "editwarden edits files of one workspace folder safely: every path is sandboxed to the workspace root, every change is checked against the project's constraints, written atomically and checkpointed.",
  'Work like this: list_files / search_files to find code, read_file to see it (it returns a sha256; send it back as expected_hash), edit_file with an old_text copied exactly and unique in the file (dry_run: true to preview), verify to build or test.',
  'Take checkpoint_create before a risky series of edits; checkpoint_restore undoes them exactly.',
  'A refused call writes nothing and returns isError with a code, a message and a hint: follow the hint.',
].join(' ');

export function createMcpServer(session: McpSession, log: (line: string) => void): Server {
  // This process answers, then settles: its projects may defer a lone edit's checkpoint fsync (checkpoints.durability).
  markLongLived();
  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS });

  const askRoots = (): Promise<readonly string[] | undefined> =>
    server
      .listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS })
      .then((answer) => answer.roots.map((r) => r.uri))
      .catch((error: unknown) => {
        // A client that announced roots but cannot list them gets the --root boundary instead of none.
        log(`editwarden mcp: the client did not list its roots (${(error as Error).message}); using --root`);
        return undefined;
      });

  server.oninitialized = () => {
    // The event log names the client (its initialize clientInfo) beside the route.
    session.setClientName(server.getClientVersion()?.name);
    if (server.getClientCapabilities()?.roots) session.setClientRoots(askRoots());
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    session.setClientRoots(askRoots());
    if (await session.refreshRoot()) await server.sendToolListChanged().catch(() => undefined);
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await session.listTools() }));
  // extra.signal aborts when the client cancels the request: the call stops (a running build is killed), the session goes on.
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // The fsyncs the last answer left behind (checkpoints.durability: deferred) are on disk before this call is answered.
    settleDurable();
    const failure = durabilityRefusal();
    if (failure) return failure;
    try {
      return await session.call(request.params.name, request.params.arguments ?? {}, extra.signal);
    } finally {
      // After the answer has gone out (the transport writes it on this turn of the loop), not before.
      setImmediate(settleDurable);
    }
  });
  return server;
}

/** A deferred fsync that failed is said in the next answer, which does nothing else: the person's disk is in trouble. */
function durabilityRefusal(): McpToolResult | null {
  const failure = takeDurabilityFailure();
  if (failure === null) return null;
  return errorResult({
    code: ErrorCode.IO,
    message: `An earlier write is in place, but making its checkpoint durable failed (${failure.error.message}; ${failure.paths.join(', ')}): after an OS crash its undo step may be missing. This call did nothing.`,
    hint: 'Check the disk (free space, errors in the system log), then retry this call.',
  });
}
