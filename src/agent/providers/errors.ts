/**
 * Errors of the model side of a run: a missing API key (named), a model
 * spec that is not `provider:model`, a provider that answered with an error
 * or not at all. Each carries a stable code, a message and a hint for the
 * person running the agent (the model never sees these: the run stops).
 * An AgentError is an EditwardenError (one error type); the codes live with
 * every other code in src/errors.ts.
 */
import { EditwardenError, ErrorCode, type ErrorInfo } from '../../errors.js';

export const AgentErrorCode = {
  /** The environment variable holding the provider's API key is not set. */
  MISSING_KEY: ErrorCode.MISSING_KEY,
  /** `--model` is not `provider:model`, or names an unknown provider. */
  MODEL_SPEC: ErrorCode.MODEL_SPEC,
  /** The provider's SDK is not installed (the library's optional peer; the CLI carries its own copy). */
  MISSING_SDK: ErrorCode.MISSING_SDK,
  /** The provider answered with an error (HTTP status, protocol error) or could not be reached. */
  PROVIDER: ErrorCode.PROVIDER,
  /** A replay / script ran out of recorded turns. */
  SCRIPT_EXHAUSTED: ErrorCode.SCRIPT_EXHAUSTED,
  /** A tool call the loop could not run as written (bad JSON, unknown tool, bad arguments). */
  MALFORMED_CALL: ErrorCode.MALFORMED_CALL,
} as const;
export type AgentErrorCode = (typeof AgentErrorCode)[keyof typeof AgentErrorCode];

export interface AgentErrorInfo extends ErrorInfo {
  code: AgentErrorCode;
}

/** An EditwardenError of the model side; its own class only so a caller can tell a run that never started. */
export class AgentError extends EditwardenError {
  declare readonly code: AgentErrorCode;

  constructor(info: AgentErrorInfo, options?: { cause?: unknown }) {
    super(info, options);
    this.name = 'AgentError';
  }
}

/** An SDK or network failure as an AgentError that says which provider and what to check. */
export function providerFailure(providerId: string, error: unknown): AgentError {
  if (error instanceof AgentError) return error;
  const e = error as { status?: number; message?: string; name?: string };
  const status = typeof e?.status === 'number' ? e.status : undefined;
  const text = e?.message ?? String(error);
  let hint = 'Check --base-url, the network and the provider status, then run again.';
  if (status === 401 || status === 403) hint = 'The API key was refused: check the key in the environment variable for this provider.';
  else if (status === 404) hint = 'The model or endpoint was not found: check the model name and --base-url (OpenAI-compatible servers usually end in /v1).';
  else if (status === 429) hint = 'Rate limited or out of quota: wait, or lower the request rate.';
  return new AgentError(
    {
      code: AgentErrorCode.PROVIDER,
      message: `The model provider ${providerId} failed${status !== undefined ? ` (HTTP ${status})` : ''}: ${text}`,
      hint,
    },
    { cause: error },
  );
}
