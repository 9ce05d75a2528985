/**
 * The run's control as an agent-side caller (the agent session, the Editor)
 * gives it: its name, its cancellation and its clock. The project itself is
 * host/'s `Project`, passed whole as the entry opened it. Types only.
 */

/** The run's name, cancellation and clock, as the caller gives them (default: a new id, no signal, the system clock). */
export interface RunControl {
  id?: string;
  /** Ctrl-C: the running call stops at once, no later call runs; the work so far is kept. */
  signal?: AbortSignal;
  now?: () => Date;
}
