/**
 * The clients `editwarden init` and `editwarden hook` know, by name.
 */
import { claude } from './claude.js';
import { codex } from './codex.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import { qwen } from './qwen.js';
import type { ClientIntegration } from './client.js';

export const CLIENTS: Readonly<Record<string, ClientIntegration>> = { claude, codex, gemini, cursor, opencode, copilot, qwen };
export type { ClientIntegration };
