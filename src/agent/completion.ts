/**
 * task_completion for headless runs, as the Editor has it: when a build or test command is
 * configured or detected (and verify.on_completion is not false), "done" is verified first —
 * build, then tests, through the Verifier, under the run's id. A failed verification refuses the
 * completion (the run goes on, the model sees the first errors); only a passing one ends the run.
 * "partial" and "blocked" end the run unverified, as they claim nothing. Never writes a project file.
 */
import type { Config } from '../config/config.js';
import { ErrorCode } from '../errors.js';
import { taskCompletionTool, TaskCompletionArgs } from '../tools/control.js';
import { defineTool, type AnyTool } from '../tools/types.js';
import type { FileView } from '../workspace/view.js';
import { describeSteps, firstErrors, runVerification, verificationCommands } from './editor/verification.js';

export function verifyingTaskCompletion(ws: FileView, config: Config, runId: string): AnyTool {
  return defineTool({
    ...taskCompletionTool,
    description: `${taskCompletionTool.description} With status done, the project's build and tests run first (when the project has them): a failure refuses the completion and shows you the errors to fix.`,
    schema: TaskCompletionArgs,
    async execute(args, ctx) {
      if (args.status !== 'done' || !config.verify.on_completion) return taskCompletionTool.execute(args, ctx);
      const commands = verificationCommands(ws, config);
      if (!commands.build && !commands.test) return taskCompletionTool.execute(args, ctx);
      const v = await runVerification(ws, { config, baseline: 'off', runId, signal: ctx.signal });
      const steps = describeSteps(v).join('; ');
      const verification = { run_id: v.run_id, passed: v.passed, steps };
      if (v.passed) {
        return { ok: true, output: `Task marked done. Verified first: ${steps}.`, data: { summary: args.summary, status: 'done', verification }, endsRun: true };
      }
      const errors = firstErrors(v);
      const message = `task_completion was refused: the verification failed (${steps}).`;
      return {
        ok: false,
        output: [message, ...errors.map((e) => `  ${e}`), `Logs: .editwarden/runs/${v.run_id}/verify/`, 'hint: Fix what fails, then call task_completion again (or with status partial/blocked to stop without it).'].join('\n'),
        data: { verification },
        error: { code: ErrorCode.VERIFY_FAILED, message, hint: 'Fix what fails, then call task_completion again; status partial or blocked ends the run without verification.' },
      };
    },
  });
}
