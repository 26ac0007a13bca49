// The device runtime's names the default mode's ownership checks use
// (assembly/ownership.ts): every kernel module exports them (build/asc.ts), the
// pass that instruments a kernel finds them there (an AssemblyScript build) or
// imports them from the runtime (a C++ kernel, build/ownership-pass.ts).

/**
 * Mutable i32 globals: the TCM arena as [lo, span] (a kernel store marks the written-map when (address - lo) u< span),
 * the library's static data (the same; the host reads it back), and the window the slow path found, [lo, lo + len),
 * with mark = 1 when it is TCM (a store there marks the written-map).
 */
export const OWN_GLOBALS = {
  tcmLo: "gpsimd_own_tcm_lo", tcmSpan: "gpsimd_own_tcm_span",
  staticLo: "gpsimd_own_static_lo", staticSpan: "gpsimd_own_static_span",
  winLo: "gpsimd_own_win_lo", winLen: "gpsimd_own_win_len", winMark: "gpsimd_own_win_mark",
} as const;

/**
 * The slow path (addr, bytes, store) -> void, which sets the window, the bulk checks (dst, n) and (dst, src, n), and
 * the bulk store's marking alone (dst, n), where the sanitizer checks the store (sanitize mode).
 */
export const OWN_FUNCTIONS = { window: "gpsimd_own_window", store: "gpsimd_own_store", copy: "gpsimd_own_copy", mark: "gpsimd_own_mark_written" } as const;

/** What a failed check reports (address, bytes, first bad byte), which the host reads from the instance's exports. */
export const OWN_REPORT = { addr: "gpsimd_own_report_addr", bytes: "gpsimd_own_report_bytes", bad: "gpsimd_own_report_bad" } as const;

/** The virtual entry's export line for them. */
export const OWNERSHIP_EXPORTS = `export { ${[...Object.values(OWN_GLOBALS), ...Object.values(OWN_FUNCTIONS), ...Object.values(OWN_REPORT)].join(", ")} } from "gpsimd/ownership";\n`;

/**
 * A build flag (extra_cflags) that leaves the ownership checks out of an AssemblyScript library: only for measuring
 * what they cost (bench/suites/checks.ts). It is part of the library's hash like any flag.
 */
export const WITHOUT_OWNERSHIP_CHECKS = "-DGPSIMD_WITHOUT_OWNERSHIP_CHECKS=1";

/**
 * The source file the code of the checks maps to (build/ownership-pass.ts): the emulator's, never counted as the
 * kernel's (build/count-pass.ts). The runtime's own file, so that asc, which embeds each mapped file's text, has it.
 */
export const CHECK_SOURCE = "~lib/gpsimd/ownership.ts";
