// bench/run.mjs's entry for the guarded shell through the warm server (the rows and how they are measured:
// guarded-shell.mjs, which also runs on its own).
export { run } from './guarded-shell.mjs';
