// Numbers the build and the runtime must agree on.

/** Pages every kernel module asks of the imported memory; the device memory starts at least this large. */
export const INITIAL_PAGES = 64;
/** Static-data base of the first of the two builds of a library. */
export const BUILD_BASE_A = 65536;
/** Static-data base of the second build; the difference marks addresses (build/relocate.ts). */
export const BUILD_BASE_B = 65536 + 1048576;
