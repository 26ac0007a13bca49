// The device runtime C++ builds merge in depends only on gpsimd (assembly/ and the build step's code), so
// `npm run build` compiles it once into the package's own folder (dist/prebuilt/device-runtime/, prebuild.ts) and a
// user's first C++ build with an empty cache folder takes it from there instead of compiling it (asc, twice). The
// file is named by the same key as the cache folder's entry (a new gpsimd, or another install place, never finds an
// old one) and checked as a cache entry is; one that does not check out is not used, with a warning, and the runtime
// is compiled. The bytes are the compiled runtime's either way (test/cpp/prebuilt.test.ts).
import path from "node:path";
import { PACKAGE_ROOT, PREBUILT_DIR } from "../paths.js";
import { readEntry, runtimeCacheFile, type Runtime } from "./runtime-cache.js";
import { warnBuild } from "../build-warnings.js";

/** The package's prebuilt runtime file for this sanitize mode. */
export function prebuiltRuntimeFile(sanitize: boolean): string {
  return path.join(PREBUILT_DIR, "device-runtime", path.basename(runtimeCacheFile(sanitize)));
}

/** The package's prebuilt runtime of this mode, checked; null when it is not there or does not check out (warned). */
export function prebuiltRuntime(sanitize: boolean): Runtime | null {
  const file = prebuiltRuntimeFile(sanitize);
  const found = readEntry(file, sanitize);
  if (found && "problem" in found) {
    warnBuild(`the package's prebuilt device runtime ${file} could not be used (${found.problem}); the runtime was compiled instead (\`npm run build\` in ${PACKAGE_ROOT} makes the file again)`);
    return null;
  }
  return found;
}
