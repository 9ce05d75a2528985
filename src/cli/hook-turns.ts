/**
 * One call at a time in the warm hook server: a call runs with its
 * client's environment, working folder and umask put in place for this
 * whole process (the CLI reads them from `process`), so no two calls may
 * interleave. A guarded shell call gives its turn up while its command runs
 * in the client (minutes, maybe) and takes a new one, and its context
 * again, for the capture after.
 */

/** What a call runs with: its client's process state. */
export interface CallContext {
  cwd: string;
  env: Record<string, string>;
  umask: number;
}

/** Puts `ctx` in place for this process; false when the working folder is gone. */
export function enterContext(ctx: CallContext): boolean {
  try {
    process.chdir(ctx.cwd);
  } catch {
    return false;
  }
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, ctx.env);
  process.umask(ctx.umask);
  return true;
}

/** A queue of turns: `take()` resolves, in order, to the function that ends the turn. */
export class Turns {
  private last: Promise<void> = Promise.resolve();

  take(): Promise<() => void> {
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const before = this.last;
    this.last = before.then(() => ended);
    return before.then(() => end);
  }
}
