/**
 * How a run is run, named once: the one vocabulary of modes every floor
 * uses (the CLI's `--mode`, the run profile, the prompts, the guard, the
 * records). A floor that needs fewer derives its subset from this type,
 * never spells a list of its own. It lives on the config floor because the
 * guard (below runs/, where the profile is built) asks one question of it.
 */

export const RUN_MODES = ['headless', 'interactive', 'controlled', 'editor'] as const;

export type RunMode = (typeof RUN_MODES)[number];

/**
 * The guard's one question of a mode: is a person there to approve each change and answer questions
 * ('interactive'), or not ('headless': the constraints alone decide, tools that need a person are refused).
 * The ADR's two words, as metrics.json records them; the profile's approval policy picks one.
 */
export type Attendance = Extract<RunMode, 'headless' | 'interactive'>;
