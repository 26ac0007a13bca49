// The name of the custom section that carries a C++ shape module's source map (written by
// shape-polls.ts at build time, read by host/library/cpp-shapes.ts when a stop or trap names a
// line). Its own file so the host can read it without importing the build passes: those import
// Binaryen, whose top-level await would break require("gpsimd").
export const SHAPE_SOURCE_MAP_SECTION = "gpsimd.shape_source_map";
