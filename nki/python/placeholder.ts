// Framework packages a kernel file imports for its host-side code (torch, jax, pytest, ...):
// gpsimd does not provide them, so they import as placeholders. Module-level code that builds
// decorators or constants from them runs (every use gives another placeholder); inside a kernel
// (placeholders forbidden by the language room while tracing) any use is a RuntimeError naming it.

import { HostObject, NativeFunction, PyException, type BinaryOperator, type CallContext, type PyValue } from "./values.js";
import { PyClass, PyFunction } from "./objects.js";

let forbidden = false;

/** While on, using a placeholder (calling it, indexing it, operators) raises a Python RuntimeError. */
export function setPlaceholdersForbidden(on: boolean): void { forbidden = on; }
export function placeholdersForbidden(): boolean { return forbidden; }

export function isPlaceholder(v: PyValue): v is Placeholder { return v instanceof Placeholder; }

export class Placeholder extends HostObject {
  readonly typeName = "placeholder";
  readonly isPlaceholder = true;
  private readonly attrs = new Map<string, PyValue>();
  constructor(readonly path: string) { super(); }

  private guard(what: string): void {
    if (!forbidden) return;
    const root = this.path.split(/[.([]/)[0];
    throw new PyException("RuntimeError", `${this.path} ${what}: '${root}' is imported as a placeholder (gpsimd runs NKI kernels without ${root}), so it cannot be used inside a kernel`);
  }

  override getAttr(name: string): PyValue | undefined {
    const own = this.attrs.get(name);
    if (own !== undefined) return own;
    if (name === "__name__") return this.path;
    // `with torch.no_grad():` in host code
    if (name === "__enter__") return new NativeFunction("__enter__", () => { this.guard("was entered"); return this; });
    if (name === "__exit__") return new NativeFunction("__exit__", () => false);
    if (name.startsWith("__") && name.endsWith("__")) return undefined;
    return new Placeholder(`${this.path}.${name}`);
  }
  override setAttr(name: string, value: PyValue): void { this.attrs.set(name, value); }
  override call(args: PyValue[], kwargs: Map<string, PyValue>): PyValue {
    this.guard("was called");
    // A framework decorator (@pytest.mark.x, @torch.no_grad(), jax.jit(f)) keeps the Python function it wraps.
    if (args.length === 1 && kwargs.size === 0 && (args[0] instanceof PyFunction || args[0] instanceof PyClass)) return args[0];
    return new Placeholder(`${this.path}(...)`);
  }
  override getItem(): PyValue { this.guard("was indexed"); return new Placeholder(`${this.path}[...]`); }
  override setItem(): void { this.guard("was assigned to"); }
  override binary(op: BinaryOperator): PyValue { this.guard(`was used with ${op}`); return new Placeholder(`(${this.path} ${op} ...)`); }
  override unary(): PyValue { this.guard("was negated"); return this; }
  override iterate(_ctx: CallContext): Iterator<PyValue> {
    throw new PyException(forbidden ? "RuntimeError" : "TypeError", `${this.path} is a placeholder (its package is not available in gpsimd) and cannot be iterated`);
  }
  override truthy(): boolean { return true; }
  override repr(): string { return `<placeholder ${this.path}>`; }
  override hashKey(): string { return `placeholder:${this.path}`; }
}
