// dataclasses: @dataclass builds __init__, __repr__ and __eq__ from the class annotations.

import { HostObject, PyDict, PyException, PyTuple, type PyValue } from "./values.js";
import { registerNativeModule } from "./modules.js";
import { NativeMethod, PyClass, PyInstance } from "./objects.js";
import { bindArgs, bindParams, type ParamSpec } from "./args.js";
import { callValue, dictSet, pyEquals } from "./operators.js";
import { pyRepr } from "./format.js";
import { fn, module } from "./stdlib-common.js";

// ---------------------------------------------------------------- dataclasses

/** dataclasses.field(default=..., default_factory=...). */
class DataclassField extends HostObject {
  readonly typeName = "Field";
  constructor(readonly defaultValue: PyValue | undefined, readonly factory: PyValue | undefined) { super(); }
}

interface FieldSpec { name: string; default: PyValue | undefined; factory: PyValue | undefined }

function dataclassFields(cls: PyClass): FieldSpec[] {
  const fields = new Map<string, FieldSpec>();
  for (const c of [...cls.mro].reverse()) {
    const own = c.ns.get("__dataclass_fields__");
    if (own instanceof PyTuple && c !== cls) {
      for (const f of own.items) { const spec = (f as unknown as { spec: FieldSpec }).spec; fields.set(spec.name, spec); }
    }
  }
  const annotations = cls.ns.get("__annotations__");
  if (annotations instanceof PyDict) {
    for (const [name] of annotations.entries.values()) {
      const n = String(name);
      const v = cls.ns.get(n);
      if (v instanceof DataclassField) {
        fields.set(n, { name: n, default: v.defaultValue, factory: v.factory });
        if (v.defaultValue !== undefined) cls.ns.set(n, v.defaultValue); else cls.ns.delete(n);
      } else fields.set(n, { name: n, default: v, factory: undefined });
    }
  }
  return [...fields.values()];
}

class FieldRecord extends HostObject {
  readonly typeName = "Field";
  constructor(readonly spec: FieldSpec) { super(); }
  override getAttr(name: string): PyValue | undefined { return name === "name" ? this.spec.name : undefined; }
}

function makeDataclass(cls: PyValue): PyValue {
  if (!(cls instanceof PyClass)) throw new PyException("TypeError", "dataclass() should be applied to a class");
  const fields = dataclassFields(cls);
  const params: ParamSpec[] = fields.map((f) => ({ name: f.name, kind: "pos", default: f.default, optional: f.default === undefined && f.factory !== undefined }));
  cls.ns.set("__dataclass_fields__", new PyTuple(fields.map((f) => new FieldRecord(f))));
  if (!cls.ns.has("__init__")) {
    cls.ns.set("__init__", new NativeMethod("__init__", (args, kwargs, ctx) => {
      const self = args[0] as PyInstance;
      const values = bindParams(`${cls.name}.__init__`, params, args.slice(1), kwargs);
      fields.forEach((f, i) => self.attrs.set(f.name, values[i] !== undefined ? values[i]! : callValue(f.factory!, [], new Map(), ctx)));
      const post = self.method("__post_init__");
      if (post) post.call!([], new Map(), ctx);
      return null;
    }));
  }
  if (!cls.ns.has("__repr__")) {
    cls.ns.set("__repr__", new NativeMethod("__repr__", ([self]) => `${cls.name}(${fields.map((f) => `${f.name}=${pyRepr((self as PyInstance).attrs.get(f.name) ?? null)}`).join(", ")})`));
  }
  if (!cls.ns.has("__eq__")) {
    cls.ns.set("__eq__", new NativeMethod("__eq__", ([self, other]) => other instanceof PyInstance && other.cls === (self as PyInstance).cls
      && fields.every((f) => pyEquals((self as PyInstance).attrs.get(f.name) ?? null, other.attrs.get(f.name) ?? null))));
  }
  return cls;
}

registerNativeModule("dataclasses", () => module("dataclasses", {
  dataclass: fn("dataclass", (args) => (args.length === 1 ? makeDataclass(args[0]) : fn("dataclass", (inner) => makeDataclass(inner[0])))),
  field: fn("field", (args, kwargs) => {
    const { default: d, default_factory: f } = bindArgs("field", ["*", "default=?", "default_factory=?", "**rest"], args, kwargs);
    return new DataclassField(d, f);
  }),
  fields: fn("fields", (args) => {
    const v = args[0];
    const cls = v instanceof PyInstance ? v.cls : v;
    const f = cls instanceof PyClass ? cls.ns.get("__dataclass_fields__") : undefined;
    if (!(f instanceof PyTuple)) throw new PyException("TypeError", "must be called with a dataclass type or instance");
    return f;
  }),
  asdict: fn("asdict", (args) => {
    const v = args[0];
    if (!(v instanceof PyInstance)) throw new PyException("TypeError", "asdict() should be called on dataclass instances");
    const d = new PyDict();
    const f = v.cls.lookup("__dataclass_fields__");
    if (f instanceof PyTuple) for (const r of f.items) { const n = (r as FieldRecord).spec.name; dictSet(d, n, v.attrs.get(n) ?? null); }
    return d;
  }),
}));
