// The modules NKI kernels import, registered with the interpreter: neuronxcc.nki (+ .language,
// .isa, .typing) as the seeds and most published kernels use them, the current nki (+ .language,
// .isa), and the numpy subset kernels use inside kernels.
import { HostObject, NativeFunction, PyModule, PyException, type CallContext, type PyValue } from "../python/values.js";
import { NkiSyntaxError } from "../../host/checks/errors.js";
import { atSite, errorDetails, setSourceProvider } from "../machine/site.js";
import { sourceOf } from "../python/parse.js";
import { PyFunction } from "../python/objects.js";
import { registerNativeModule } from "../python/modules.js";
import { NKI_DTYPES } from "../machine/nki-dtype.js";
import { makeMathFunctions } from "./nl-math.js";
import { makeMemoryFunctions } from "./nl-memory.js";
import { makeControlFunctions } from "./nl-control.js";
import { makeComposedFunctions } from "./nl-composed.js";
import { makeLegacyIsa, makeCurrentIsa } from "./isa.js";
import { BUFFERS, TileSize, floatLimits } from "./constants.js";
import { KernelFunction, GridKernel, launchPython, type KernelOptions } from "./kernel.js";
import { makeNumpy } from "./numpy.js";
import { installArrayOperators } from "./operators.js";
import { typeName } from "./args.js";
import type { DeviceName } from "../machine/device.js";

function moduleOf(name: string, attrs: Map<string, PyValue> | Record<string, PyValue>): PyModule {
  const m = new PyModule(name);
  for (const [k, v] of attrs instanceof Map ? attrs : Object.entries(attrs)) m.attrs.set(k, v);
  return m;
}

let nlAttrs: Map<string, PyValue> | null = null;
/** nki.language's attributes (built once: nl.add is the same object in both generations and as np.add's op). */
function languageAttrs(): Map<string, PyValue> {
  if (nlAttrs) return nlAttrs;
  const m = new Map<string, PyValue>();
  for (const [k, v] of NKI_DTYPES) m.set(k, v);
  m.set("sbuf", BUFFERS.sbuf); m.set("psum", BUFFERS.psum); m.set("hbm", BUFFERS.private_hbm);
  m.set("private_hbm", BUFFERS.private_hbm); m.set("shared_hbm", BUFFERS.shared_hbm);
  m.set("tile_size", new TileSize());
  m.set("fp32", floatLimits("fp32", 3.4028234663852886e38, 1.1754943508222875e-38, 1.1920928955078125e-7));
  m.set("bf16", floatLimits("bf16", 3.3895313892515355e38, 1.1754943508222875e-38, 0.0078125));
  m.set("fp16", floatLimits("fp16", 65504, 6.103515625e-5, 0.0009765625));
  for (const f of [makeMathFunctions(), makeMemoryFunctions(), makeControlFunctions(), makeComposedFunctions()]) for (const [k, v] of f) m.set(k, v);
  nlAttrs = m;
  return m;
}

/** nki.typing.tensor: `x: tensor[128, 512] = ...` annotations evaluate to it (subscripting gives itself). */
class TensorAnnotation extends HostObject {
  readonly typeName = "tensor";
  override getItem(): PyValue { return this; }
  override call(): PyValue { return this; }
  override repr(): string { return "nki.typing.tensor"; }
}

const DEVICE_OF_TARGET: Record<string, DeviceName> = { trn1: "trn1", inf2: "trn1", trn2: "trn2", trn3: "trn2" };

/** jit / trace / baremetal / benchmark / profile: as a bare decorator, with arguments, or called on a function. */
function decorator(name: string): NativeFunction {
  const wrap = (fn: PyValue, kwargs: Map<string, PyValue>, ctx: CallContext): KernelFunction => {
    if (fn instanceof KernelFunction) return fn;
    if (!(fn instanceof PyFunction)) throw new PyException("TypeError", `nki.${name} decorates a function, not ${typeName(fn)}`, ctx.site);
    const options: KernelOptions = {};
    const target = kwargs.get("platform_target");
    if (typeof target === "string") options.device = DEVICE_OF_TARGET[target] ?? "trn1";
    const mode = kwargs.get("mode");
    if (typeof mode === "string") options.mode = mode;
    return new KernelFunction(fn, options);
  };
  return new NativeFunction(`nki.${name}`, (args, kwargs, ctx) => {
    const fn = args[0] ?? kwargs.get("kernel") ?? kwargs.get("fn") ?? null;
    if (fn !== null && fn !== undefined) return wrap(fn, kwargs, ctx);
    return new NativeFunction(`nki.${name}.<decorator>`, (a2, _k2, ctx2) => wrap(a2[0], kwargs, ctx2));
  });
}

function asKernel(v: PyValue, ctx: CallContext): { kernel: KernelFunction; grid: readonly number[] } {
  if (v instanceof GridKernel) return { kernel: v.kernel, grid: v.grid };
  if (v instanceof KernelFunction) return { kernel: v, grid: [] };
  if (v instanceof PyFunction) return { kernel: new KernelFunction(v, { plain: true }), grid: [] };
  throw new PyException("TypeError", `expected an NKI kernel, got ${typeName(v)}`, ctx.site);
}

/**
 * nki.compiler: scheduling hints are accepted and change nothing here (no_reorder, the skip decorator);
 * direct allocation (sbuf.mod_alloc, psum.mod_alloc) is refused when called, so a file that only
 * names it at module level still loads.
 */
function compilerModule(name: string): PyModule {
  const refuse = (what: string) => new NativeFunction(what, (_a, _k, ctx) => {
    throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `${what}: direct SBUF/PSUM allocation is not supported by gpsimd (tiles are placed by the machine)${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
  });
  const passThrough = (what: string) => new NativeFunction(what, (args) => args[0] ?? null);
  return moduleOf(name, {
    skip_middle_end_transformations: passThrough("skip_middle_end_transformations"),
    enable_stack_allocator: passThrough("enable_stack_allocator"),
    force_auto_alloc: passThrough("force_auto_alloc"),
    no_reorder: new NativeFunction("no_reorder", () => null),
    sbuf: moduleOf(`${name}.sbuf`, { mod_alloc: refuse("nki.compiler.sbuf.mod_alloc"), alloc: refuse("nki.compiler.sbuf.alloc") }),
    psum: moduleOf(`${name}.psum`, { mod_alloc: refuse("nki.compiler.psum.mod_alloc"), alloc: refuse("nki.compiler.psum.alloc") }),
  });
}

function nkiModuleAttrs(generation: "neuronxcc" | "nki", language: PyModule, isa: PyModule, typing: PyModule): Map<string, PyValue> {
  const m = new Map<string, PyValue>();
  for (const d of ["jit", "trace", "baremetal", "benchmark", "profile"]) m.set(d, decorator(d));
  m.set("simulate_kernel", new NativeFunction("nki.simulate_kernel", (args, kwargs, ctx) => {
    if (args.length === 0) throw new PyException("TypeError", "simulate_kernel() missing the kernel", ctx.site);
    const { kernel, grid } = asKernel(args[0], ctx);
    return launchPython(kernel, args.slice(1), kwargs, grid, ctx).returned;
  }));
  m.set("simulate", new NativeFunction("nki.simulate", (args, _kw, ctx) => {
    const { kernel, grid } = asKernel(args[0], ctx);
    return grid.length ? new GridKernel(kernel, grid) : kernel;
  }));
  m.set("language", language);
  m.set("isa", isa);
  m.set("typing", typing);
  m.set("tensor", typing.attrs.get("tensor")!);
  m.set("compiler", compilerModule(generation === "nki" ? "nki.compiler" : "neuronxcc.nki.compiler"));
  return m;
}

let registered = false;

/** Registers neuronxcc.nki*, nki*, and numpy with the interpreter (idempotent); installs tile operators. */
export function registerNkiModules(): void {
  if (registered) return;
  registered = true;
  installArrayOperators();
  setSourceProvider(sourceOf);
  const typing = () => moduleOf("neuronxcc.nki.typing", { tensor: new TensorAnnotation() });
  let legacy: { nki: PyModule; nl: PyModule; isa: PyModule; typing: PyModule } | null = null;
  let current: { nki: PyModule; nl: PyModule; isa: PyModule; typing: PyModule } | null = null;
  const legacyModules = () => {
    if (legacy) return legacy;
    const nl = moduleOf("neuronxcc.nki.language", languageAttrs());
    const isa = moduleOf("neuronxcc.nki.isa", makeLegacyIsa());
    const t = typing();
    return (legacy = { nki: moduleOf("neuronxcc.nki", nkiModuleAttrs("neuronxcc", nl, isa, t)), nl, isa, typing: t });
  };
  const currentModules = () => {
    if (current) return current;
    const nl = moduleOf("nki.language", languageAttrs());
    const isa = moduleOf("nki.isa", makeCurrentIsa());
    const t = typing();
    return (current = { nki: moduleOf("nki", nkiModuleAttrs("nki", nl, isa, t)), nl, isa, typing: t });
  };
  registerNativeModule("neuronxcc", () => moduleOf("neuronxcc", { nki: legacyModules().nki }));
  registerNativeModule("neuronxcc.nki", () => legacyModules().nki);
  registerNativeModule("neuronxcc.nki.language", () => legacyModules().nl);
  registerNativeModule("neuronxcc.nki.isa", () => legacyModules().isa);
  registerNativeModule("neuronxcc.nki.typing", () => legacyModules().typing);
  registerNativeModule("neuronxcc.nki.compiler", () => legacyModules().nki.attrs.get("compiler") as PyModule);
  const constants = (isa: PyModule, name: string) => moduleOf(name, Object.fromEntries(["dge_mode", "oob_mode", "engine", "reduce_cmd", "matmul_perf_mode", "nc_version"].map((k) => [k, isa.attrs.get(k)!])));
  registerNativeModule("neuronxcc.nki.isa.constants", () => constants(legacyModules().isa, "neuronxcc.nki.isa.constants"));
  registerNativeModule("nki.isa.constants", () => constants(currentModules().isa, "nki.isa.constants"));
  registerNativeModule("nki", () => currentModules().nki);
  registerNativeModule("nki.language", () => currentModules().nl);
  registerNativeModule("nki.isa", () => currentModules().isa);
  registerNativeModule("nki.typing", () => currentModules().typing);
  registerNativeModule("numpy", () => makeNumpy(languageAttrs()));
}
