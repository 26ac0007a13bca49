// The names build/stop-polls.ts gives what it adds to a kernel module. Apart
// from the pass, so the runtime (and every core thread) can know them without
// loading Binaryen.

/** The global that holds the stop word's address. */
export const STOP_WORD_GLOBAL = "__gpsimd_stop_word";
/** The export that sets it. */
export const SET_STOP_WORD_EXPORT = "__gpsimd_set_stop_word";
/** The import a poll calls when the word is set: module and name. */
export const STOP_IMPORT = { module: "gpsimd", name: "stop" } as const;
