// The one C++ translation unit gpsimd adds to a C++ library: it declares the
// user's kernels again (as written) and exports each under its own name with
// numbers-only parameters (tensors as descriptor addresses), switching the
// C++ stack to this core's heap first; and it defines printf on top of the
// runtime (so libc's printf, which would need WASI, is never linked) and the
// device's heap and abort for the C and C++ libraries (gpsimd/device-libc.h).
import type { CppKernel } from "./kernel-decls.js";

/**
 * The names wasm frames of the exports unit's wrappers have (gpsimd_kernel_X, its lld export shim
 * gpsimd_kernel_X.command_export, gpsimd_call_X(...)); Binaryen inlines kernel X into them, so a frame so named is
 * kernel X's: group 1.
 */
export const WRAPPER_FRAME = /^gpsimd_(?:kernel|call)_(\w+?)(?:\.command_export)?(?:\(.*\))?$/;

/** Default C++ stack per launch, on the core's kernel heap (-DSTACK_SIZE=N raises it). */
export const DEFAULT_STACK_BYTES = 64 * 1024;
/** The largest stack a kernel may declare on the device (API.md: at most 400 KB); the rest of -DSTACK_SIZE is heap. */
export const MAX_STACK_BYTES = 400 * 1024;

/** The C++ stack for a STACK_SIZE (0: not given): between the default and the device's largest. */
export function cppStackBytes(stackSize: number): number {
  return Math.min(MAX_STACK_BYTES, Math.max(DEFAULT_STACK_BYTES, stackSize));
}

const RAW: Record<string, string> = { tensor: "uint32_t", f64: "double", f32: "float", i64: "int64_t", i32: "int32_t", bool: "int32_t" };

/** The source of the exports unit for these kernels. */
export function kernelExportsSource(kernels: CppKernel[], stackBytes: number): string {
  const lines = [
    "#include <torch/torch.h>",
    "#include <gpsimd/device-libc.h>",
    "#include <stdarg.h>",
    "#include <string.h>",
    ...kernels.map((k) => `${k.returnText} ${k.name}(${k.paramsText});`),
    "// Points the C++ stack pointer at a fresh stack on this core's heap (global.set: C++ cannot name the stack pointer).",
    "static inline void gpsimd_set_stack(uint32_t top) {",
    "  __asm__ volatile(\"local.get %0\\n\\tglobal.set __stack_pointer\" : : \"r\"(top));",
    "}",
  ];
  for (const k of kernels) {
    const params = k.params.map((p, i) => `${RAW[p.kind]} a${i}`).join(", ");
    const args = k.params.map((p, i) => (p.kind === "tensor" ? `torch::Tensor::gpsimd_from(a${i})` : p.kind === "bool" ? `a${i} != 0` : `a${i}`)).join(", ");
    const names = k.params.map((_, i) => `a${i}`).join(", ");
    lines.push(
      `__attribute__((noinline)) static uint32_t gpsimd_call_${k.name}(${params}) { return ${k.name}(${args}).gpsimd_handle(); }`,
      `extern "C" __attribute__((export_name("${k.name}"))) uint32_t gpsimd_kernel_${k.name}(${params}) {`,
      `  gpsimd_set_stack(gpsimd_stack(${stackBytes}));`,
      `  return gpsimd_call_${k.name}(${names});`,
      "}",
    );
  }
  lines.push(PRINTF);
  return lines.join("\n") + "\n";
}

// C printf: what printf("text") calls (a C++ call with arguments is the typed template of gpsimd/printf.h), and a
// call from code that declared printf before <torch/torch.h>. It finds each conversion's argument type in the format
// and records the argument through the runtime (the records are the runtime's memory: in sanitize mode a store of
// the kernel's there would be an error), then hands the format to the runtime. A conversion when no argument at all
// follows the format (the variadic area is null) would read what is not there, undefined on the device: a
// KernelAbortError at the kernel's line.
const PRINTF = String.raw`
extern "C" int printf(const char* fmt, ...) {
  enum { MAX_ARGS = 8 };
  static const char missing[] = "printf: the format has a conversion (%...) but no argument follows it: printf would read an argument that is not there (undefined on the device); pass the value, or write %% for a percent sign";
  va_list ap;
  va_start(ap, fmt);
  const bool none = *(void**)&ap == nullptr;
  int n = 0;
  for (const char* p = fmt; *p; p++) {
    if (*p != '%') continue;
    p++;
    if (*p == '%') continue;
    if (none) gpsimd_abort(missing, nullptr, 0);
    while (*p && strchr("-+ #0", *p)) p++;
    if (*p == '*') { if (n < MAX_ARGS) gpsimd_printf_int(n++, va_arg(ap, int)); p++; }
    while (*p >= '0' && *p <= '9') p++;
    if (*p == '.') { p++; if (*p == '*') { if (n < MAX_ARGS) gpsimd_printf_int(n++, va_arg(ap, int)); p++; } while (*p >= '0' && *p <= '9') p++; }
    int wide = 0;
    while (*p && strchr("hlLqjzt", *p)) { if (*p == 'l' || *p == 'L' || *p == 'q' || *p == 'j') wide++; p++; }
    if (!*p || n >= MAX_ARGS) break;
    switch (*p) {
      case 'd': case 'i': gpsimd_printf_int(n++, wide ? va_arg(ap, long long) : va_arg(ap, int)); break;
      case 'u': case 'x': case 'X': case 'o': case 'c':
        gpsimd_printf_uint(n++, wide ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned)); break;
      case 'p': gpsimd_printf_uint(n++, (uintptr_t)va_arg(ap, void*)); break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': gpsimd_printf_float(n++, va_arg(ap, double)); break;
      case 's': gpsimd_printf_string(n++, va_arg(ap, const char*)); break;
      default: break;
    }
  }
  va_end(ap);
  gpsimd_printf(fmt, (int32_t)strlen(fmt), n);
  return 0;
}
`;
