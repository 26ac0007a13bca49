// Suffix of the checks suite's workloads that time the default mode (checks on, raw TCM reads and stores checked
// too) against the same kernel built without raw load and store checks, with checks off (bench/suites/checks.ts);
// the report's targets pick them out by it (bench/report.ts).
export const UNCHECKED_BUILD = "-vs-unchecked-build";
