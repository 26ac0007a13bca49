// gpsimd build <op folder | files...>: compiles libraries and says what was
// built, where, and which operators each registers; compile errors are
// listed with file and line (exit code 3).
import { statSync } from "node:fs";
import { folderLibraries, filesLibrary, type LibrarySpec } from "./op-folder.js";
import { buildSpec } from "./library-source.js";
import { BUILD } from "./specs.js";
import { parseCommand, listOption, runtimeOptions, UsageError, EXIT, DEFAULT_OUT } from "./options.js";
import { bytes, duration, shownPath } from "./format.js";
import { paramText } from "../host/library/arguments.js";
import { callReport } from "./report.js";

/** Runs gpsimd build. */
export function buildCommand(argv: string[]): number {
  const parsed = parseCommand(BUILD, argv);
  if (!parsed) return EXIT.OK;
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError("gpsimd build: give an operator folder or kernel and shape files (gpsimd build --help)");
  const overrides = {
    variant: values.variant as string | undefined, name: values.name as string | undefined,
    multicore: values.multicore ? true : undefined, cflags: listOption(values, "cflag"),
  };
  const isFolder = positionals.length === 1 && statSync(positionals[0], { throwIfNoEntry: false })?.isDirectory();
  const specs: LibrarySpec[] = isFolder ? folderLibraries(positionals[0], overrides) : [filesLibrary(positionals, listOption(values, "shape"), overrides)];
  const out = (values.out as string | undefined) ?? DEFAULT_OUT;
  const device = runtimeOptions(values);
  const libraries: Record<string, unknown>[] = [];
  callReport().build = { libraries };
  for (const [i, spec] of specs.entries()) {
    if (specs.length > 1) process.stderr.write(`[${i + 1}/${specs.length}] ${spec.name}\n`);
    const built = buildSpec(spec, out, !!values.force, device);
    const lib = built.library;
    const how = built.rebuilt ? `built in ${duration(built.millis)}` : "up to date";
    process.stdout.write(`${spec.name}: ${shownPath(built.file)} (${bytes(statSync(built.file).size)}, ${how})\n`);
    process.stdout.write(`  ${lib.multicore ? `multicore, ${lib.cores} cores` : "single core"}; kernels from ${spec.compute.map(shownPath).join(", ")}\n`);
    for (const [name, op] of lib.ops) {
      process.stdout.write(`  ops.${lib.namespace}.${name}(${op.kernel.params.map((p) => paramText(op.kernel, p)).join(", ")})  kernel ${op.kernel.name} (${shownPath(op.kernel.file)}:${op.kernel.line})\n`);
    }
    libraries.push({
      name: spec.name, file: built.file, sizeBytes: statSync(built.file).size, rebuilt: built.rebuilt, multicore: lib.multicore, cores: lib.multicore ? lib.cores : 1,
      ops: [...lib.ops].map(([name, op]) => ({ op: `${lib.namespace}::${name}`, kernel: op.kernel.name, file: op.kernel.file, line: op.kernel.line, params: op.kernel.params.map((p) => paramText(op.kernel, p)) })),
    });
    lib.unload();
  }
  return EXIT.OK;
}
