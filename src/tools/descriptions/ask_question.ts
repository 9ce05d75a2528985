/**
 * What a model reads about ask_question (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const askQuestionDescription = 'Ask the person a question and wait for the answer. Interactive mode only: in headless runs it is refused and ends the run, so decide yourself when nobody is watching.';
