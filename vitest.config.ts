import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files whose bounds are tight for a shared machine: a kernel stopped within its deadline and a grace of 1.5 s, a
 * million-step Python loop in 2.5 s, the pool's threads' CPU time and sleeps, file-watch rebuilds. They run alone,
 * after the rest, so that another file's builds and core threads never share the machine with them. (Bounds of 5 s
 * and more hold side by side.)
 */
const ALONE = [
  "test/pool-idle-workers.test.ts",
  "test/reliability/hangs.test.ts",
  "test/cpp/runaway.test.ts",
  "test/cpp/hangs.test.ts",
  "test/cli/watch.test.ts",
  "test/cli/watch-cpp.test.ts",
  "test/nki/python.test.ts",
];

/**
 * The other files run two at a time even on a 2-CPU machine (vitest's default there is one): most of a file's time is
 * builds and single-threaded kernels, so a second file fills the CPU the first leaves idle. (Three at a time were no
 * faster on 2 CPUs: the vitest run of a fresh clone took 980 s against 986 s, with 1.64 CPUs busy.)
 */
const SIDE_BY_SIDE = Math.max(2, availableParallelism() - 1);

const shared = {
  testTimeout: 120_000,
  hookTimeout: 300_000,
};

export default defineConfig({
  test: {
    reporters: ["default", "./test/summary-reporter.ts"],
    projects: [
      { test: { ...shared, name: "side-by-side", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...ALONE], maxWorkers: SIDE_BY_SIDE, sequence: { groupOrder: 0 } } },
      { test: { ...shared, name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
