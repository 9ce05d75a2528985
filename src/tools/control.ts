/**
 * The tools that talk to the run, not to the files: task_completion (the
 * agent says it is done; the loop ends) and the interactive tools
 * ask_question and converse, which need a person and are refused headless
 * by the runner before they get here.
 */
import { z } from 'zod';
import { ACTIVE_EDIT_FORMAT } from '../formats/active-edit.js';
import { defineTool, failure, ToolErrorCode, type Interaction, type ToolContext } from './types.js';
import { textArg } from './call-args.js';
import { taskCompletionDescription } from './descriptions/task_completion.js';
import { askQuestionDescription } from './descriptions/ask_question.js';
import { converseDescription } from './descriptions/converse.js';
import { activeEditDescription } from './descriptions/active_edit.js';

export const TaskCompletionArgs = z
  .object({
    summary: z.string().min(1).describe('What was done, what was verified, and anything left open.'),
    status: z.enum(['done', 'partial', 'blocked']).default('done').describe('done (default), partial (some of it), or blocked (could not proceed).'),
  })
  .strict();

export const taskCompletionTool = defineTool({
  name: 'task_completion',
  kind: 'control',
  // The ADR's loop-breaking tool: "loop-breaking tools always allowed", whatever allowed_tools lists.
  implicit: 'always',
  description: taskCompletionDescription,
  describe: (a) => `task_completion (${textArg(a.status) || 'done'})`,
  schema: TaskCompletionArgs,
  async execute(args) {
    return { ok: true, output: `Task marked ${args.status}.`, data: { summary: args.summary, status: args.status }, endsRun: true };
  },
});

const AskQuestionArgs = z
  .object({
    question: z.string().min(1).describe('One clear question for the person.'),
    choices: z.array(z.string().min(1)).optional().describe('Possible answers to pick from, if any.'),
  })
  .strict();

function noInteraction(): ReturnType<typeof failure> {
  return failure({
    code: ToolErrorCode.NO_INTERACTION,
    message: 'Nobody is there to answer: this run has no interactive channel.',
    hint: 'Decide yourself, state the assumption, and go on.',
  });
}

function interactionOf(ctx: ToolContext): Interaction | undefined {
  return ctx.interaction;
}

export const askQuestionTool = defineTool({
  name: 'ask_question',
  kind: 'interactive',
  // A person at the terminal may be asked, whatever allowed_tools lists (converse stays as listed).
  implicit: 'person',
  description: askQuestionDescription,
  describe: (a) => `ask_question ${JSON.stringify(textArg(a.question))}`,
  schema: AskQuestionArgs,
  async execute(args, ctx) {
    const interaction = interactionOf(ctx);
    if (!interaction) return noInteraction();
    const answer = await interaction.ask(args.question, args.choices ? { choices: args.choices } : undefined);
    return { ok: true, output: answer, data: { answer } };
  },
});

const ConverseArgs = z
  .object({
    message: z.string().min(1).describe('What to tell the person.'),
  })
  .strict();

export const converseTool = defineTool({
  name: 'converse',
  kind: 'interactive',
  description: converseDescription,
  schema: ConverseArgs,
  async execute(args, ctx) {
    const interaction = interactionOf(ctx);
    if (!interaction) return noInteraction();
    const reply = await interaction.converse(args.message);
    return { ok: true, output: reply, data: { reply } };
  },
});

/**
 * The active edit tool of the design: no parameters. Offered only when active edit is enabled
 * (config active_edit_enabled / --active-edit); it never edits anything itself — the directives
 * in the model's replies do, through the runner like any edit_file call. Calling it returns the format.
 */
export const activeEditTool = defineTool({
  name: 'active_edit',
  kind: 'control',
  // An explicit allowed_tools list cannot have foreseen it: with active edit on it is allowed like task_completion.
  implicit: 'active-edit',
  description: activeEditDescription,
  schema: z.object({}).strict(),
  async execute() {
    return { ok: true, output: ACTIVE_EDIT_FORMAT };
  },
});
