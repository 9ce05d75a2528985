/**
 * What a model reads about active_edit (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const activeEditDescription =
  'Active edit is on for this run: you may edit files directly in your replies with ---BEGIN--- … ---END--- directives (see <active_edit> in the system message). This tool takes no parameters; calling it returns the directive format.';
