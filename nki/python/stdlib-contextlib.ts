// contextlib: @contextmanager over a generator function, nullcontext and suppress.

import { HostObject, NativeFunction, PyTuple, type CallContext, type PyValue } from "./values.js";
import { registerNativeModule } from "./modules.js";
import { PyClass, PyInstance } from "./objects.js";
import { PyIterator } from "./types.js";
import { callValue, iterate } from "./operators.js";
import { fn, module } from "./stdlib-common.js";
import { PyException } from "./values.js";

/**
 * The context manager a @contextmanager function returns: __enter__ runs the generator to its
 * yield; __exit__ runs the rest. An exception from the with-body propagates without entering the
 * generator (the generator's own except/finally around the yield do not run for it).
 */
class GeneratorContext extends HostObject {
  readonly typeName = "_GeneratorContextManager";
  private it: Iterator<PyValue> | null = null;
  constructor(private readonly gen: PyValue, private readonly ctx: CallContext) { super(); }
  override getAttr(name: string): PyValue | undefined {
    if (name === "__enter__") {
      return new NativeFunction("__enter__", () => {
        this.it = iterate(this.gen, this.ctx);
        const r = this.it.next();
        if (r.done) throw new PyException("RuntimeError", "generator didn't yield");
        return r.value;
      });
    }
    if (name === "__exit__") {
      return new NativeFunction("__exit__", ([type]) => {
        if (type !== null && type !== undefined) return false;
        if (this.it && !this.it.next().done) throw new PyException("RuntimeError", "generator didn't stop");
        return false;
      });
    }
    return undefined;
  }
}

/** A context manager from two callbacks. */
class SimpleContext extends HostObject {
  readonly typeName = "contextmanager";
  constructor(private readonly enter: () => PyValue, private readonly exit: (type: PyValue, value: PyValue) => boolean) { super(); }
  override getAttr(name: string): PyValue | undefined {
    if (name === "__enter__") return new NativeFunction("__enter__", () => this.enter());
    if (name === "__exit__") return new NativeFunction("__exit__", ([type, value]) => this.exit(type ?? null, value ?? null));
    return undefined;
  }
}

registerNativeModule("contextlib", () => module("contextlib", {
  contextmanager: fn("contextmanager", ([genFn]) => fn("contextmanager", (args, kwargs, ctx) => {
    const gen = callValue(genFn, args, kwargs, ctx);
    if (!(gen instanceof PyIterator)) throw new PyException("TypeError", "@contextmanager needs a generator function");
    return new GeneratorContext(gen, ctx);
  })),
  nullcontext: fn("nullcontext", ([value]) => new SimpleContext(() => value ?? null, () => false)),
  suppress: fn("suppress", (types) => new SimpleContext(() => null, (_type, value) =>
    value instanceof PyInstance && types.some((t) => (t instanceof PyTuple ? t.items : [t]).some((c) => c instanceof PyClass && value.cls.isSubclassOf(c))))),
}));
