// enum: Enum and IntEnum classes whose members are instances with .name and .value, looked up
// by value (Mode(1)) and iterated in definition order; auto() numbers from 1.

import { HostObject, PyException, PyModule, type PyValue } from "./values.js";
import { registerNativeModule } from "./modules.js";
import { ClassMethod, NativeMethod, Property, PyClass, PyFunction, PyInstance, StaticMethod } from "./objects.js";
import { fn, module } from "./stdlib-common.js";
import { pyRepr } from "./format.js";

/** auto(): replaced by the next number when the class is built. */
class AutoValue extends HostObject {
  readonly typeName = "auto";
}

function isMemberDefinition(name: string, v: PyValue): boolean {
  if (name.startsWith("_")) return false;
  return !(v instanceof PyFunction || v instanceof StaticMethod || v instanceof ClassMethod || v instanceof Property || v instanceof NativeMethod);
}

/** Enum's __init_subclass__: every plain attribute of the new class becomes a member. */
function buildMembers(cls: PyClass): void {
  const members: PyInstance[] = [];
  let next = 1;
  for (const [name, raw] of [...cls.ns]) {
    if (!isMemberDefinition(name, raw)) continue;
    const value = raw instanceof AutoValue ? next : raw;
    if (typeof value === "number") next = value + 1;
    const existing = members.find((m) => m.attrs.get("value") === value);
    if (existing) { cls.ns.set(name, existing); continue; } // an alias
    const member = new PyInstance(cls);
    member.attrs.set("name", name);
    member.attrs.set("value", value);
    member.attrs.set("_name_", name);
    member.attrs.set("_value_", value);
    cls.ns.set(name, member);
    members.push(member);
  }
  if (members.length) cls.enumMembers = members;
}

function enumBase(name: string): PyClass {
  const base = new PyClass(name, []);
  base.ns.set("__init_subclass__", new NativeMethod("__init_subclass__", ([cls]) => { buildMembers(cls as PyClass); return null; }));
  base.ns.set("__repr__", new NativeMethod("__repr__", ([self]) => {
    const m = self as PyInstance;
    return `<${m.cls.name}.${String(m.attrs.get("name"))}: ${pyRepr(m.attrs.get("value") ?? null)}>`;
  }));
  base.ns.set("__str__", new NativeMethod("__str__", ([self]) => `${(self as PyInstance).cls.name}.${String((self as PyInstance).attrs.get("name"))}`));
  return base;
}

registerNativeModule("enum", (): PyModule => {
  const Enum = enumBase("Enum");
  return module("enum", {
    Enum,
    IntEnum: enumBase("IntEnum"),
    Flag: enumBase("Flag"),
    auto: fn("auto", () => new AutoValue()),
    unique: fn("unique", (args) => {
      if (!(args[0] instanceof PyClass)) throw new PyException("TypeError", "unique() takes an Enum class");
      return args[0];
    }),
  });
});
