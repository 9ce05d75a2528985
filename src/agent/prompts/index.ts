/**
 * Assembles the system prompt of a run from its parts: the base prompt and
 * the mode's note (or the controlled-mode prompt), the edit-file guidelines
 * always, and the active edit instructions only when active edit is
 * enabled. Pure: options in, text out.
 */
import type { RunMode } from '../../config/modes.js';
import { ACTIVE_EDIT_INSTRUCTIONS, ACTIVE_EDIT_TEMPLATE } from './active-edit.js';
import { AGENT_PROMPT, HEADLESS_NOTE, INTERACTIVE_NOTE } from './agent.js';
import { CONTROLLED_PROMPT } from './controlled.js';
import { EDIT_GUIDELINES } from './edit-guidelines.js';

/** The modes the agent session runs (the Editor has its own prompt): a subset of the one RunMode. */
export type AgentMode = Exclude<RunMode, 'editor'>;

export interface PromptOptions {
  mode: AgentMode;
  activeEdit: boolean;
  /** Tool names offered, listed for the model. */
  tools: readonly string[];
  /** Extra project notes (e.g. the build command). */
  notes?: string[];
}

export function buildSystemPrompt(options: PromptOptions): string {
  const parts: string[] = [];
  switch (options.mode) {
    case 'controlled':
      parts.push(CONTROLLED_PROMPT);
      break;
    case 'headless':
      parts.push(AGENT_PROMPT, HEADLESS_NOTE);
      break;
    case 'interactive':
      parts.push(AGENT_PROMPT, INTERACTIVE_NOTE);
      break;
    default: {
      const never: never = options.mode;
      throw new Error(`unknown mode ${String(never)}`);
    }
  }
  parts.push(`Tools available: ${options.tools.join(', ')}.\n`);
  parts.push(EDIT_GUIDELINES);
  if (options.activeEdit && options.mode !== 'controlled') parts.push(activeEditSection());
  for (const note of options.notes ?? []) parts.push(note.endsWith('\n') ? note : `${note}\n`);
  return parts.join('\n');
}

/**
 * The design's system-message block, as its `system_message()` builds it:
 * `<active_edit>\n` + the template + `\n</active_edit>`; our details follow it.
 */
export function activeEditSection(): string {
  return `<active_edit>\n${ACTIVE_EDIT_TEMPLATE}\n</active_edit>\n\n${ACTIVE_EDIT_INSTRUCTIONS}`;
}

export { EDIT_GUIDELINES };
