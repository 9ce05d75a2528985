/**
 * What a model reads about write_file (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const writeFileDescription = [
  'Create a new file with the given content. To replace an existing file completely, set overwrite: true — but to change part of a file use edit_file,',
  'which keeps everything you did not mean to touch. Overwriting most of a large file away is refused unless force is true.',
  'The result carries the diff.',
].join(' ');
