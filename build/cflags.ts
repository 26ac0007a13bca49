// extra_cflags, as far as they mean anything to an AssemblyScript build.

/** -DNAME=VALUE flags become integer constants (asc --use NAME=VALUE); other flags are ignored. */
export function cflagConstants(flags: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of flags) {
    const m = /^-D([A-Za-z_]\w*)(?:=(.*))?$/.exec(f);
    if (m) out[m[1]] = m[2] ?? "1";
  }
  return out;
}
