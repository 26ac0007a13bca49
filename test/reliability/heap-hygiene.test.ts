// A call's kernel heap and C++ stack are its own: what a kernel leaves there (malloc blocks, stack arrays) is gone
// before the next call on the core starts, of the same library or another one, on the calling thread and on the
// core threads, in the default mode and in sanitize mode (host/cores/heap-hygiene.ts). Before, a fresh malloc block
// or stack array of the next call held the previous call's words.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, zeros, kInt32, shutdown, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/heap-hygiene", name);
const load = (name: string, sanitize: boolean): Library =>
  custom_op.load({ name, compute_srcs: [file("kernels.cpp")], shape_srcs: [file(`register-${name.slice("heap_hygiene_".length)}.ts`)], build_directory: TEST_BUILD_DIR, sanitize });
const libs = [load("heap_hygiene_a", false), load("heap_hygiene_b", false), load("heap_hygiene_a_san", true), load("heap_hygiene_b_san", true)];
afterAll(async () => {
  for (const l of libs) l.unload();
  await shutdown();
});

type Kernels = Record<"leave_secret" | "peek_heap" | "copy_heap" | "peek_stack", ((x: unknown) => { tolist(): unknown }) & { async(x: unknown): Promise<{ tolist(): unknown }> }>;
const lib = (name: string) => (ops as unknown as Record<string, Kernels>)[name];
const N = 256;
const x = () => zeros([N], kInt32);
const none = Array.from({ length: N }, () => 0);

describe("the kernel heap between calls (default mode)", () => {
  const a = lib("heap_hygiene_a"), b = lib("heap_hygiene_b");

  it("a malloc block of the next call of the same library holds zeros, not the previous call's words", () => {
    a.leave_secret(x());
    expect(a.peek_heap(x()).tolist()).toEqual(none);
  });

  it("nor does one of another library's kernel, through loads or memcpy", () => {
    a.leave_secret(x());
    expect(b.peek_heap(x()).tolist()).toEqual(none);
    a.leave_secret(x());
    expect(b.copy_heap(x()).tolist()).toEqual(none);
  });

  it("a stack array of the next call holds zeros, not the previous call's stack", () => {
    a.leave_secret(x());
    expect(b.peek_stack(x()).tolist()).toEqual(none);
  });

  it("on the core threads (.async) too", async () => {
    await a.leave_secret.async(x());
    expect((await b.peek_heap.async(x())).tolist()).toEqual(none);
    await a.leave_secret.async(x());
    expect((await b.peek_stack.async(x())).tolist()).toEqual(none);
  });
});

describe("the kernel heap between calls (sanitize mode)", () => {
  const a = lib("heap_hygiene_a_san"), b = lib("heap_hygiene_b_san");

  it("another library's memcpy of a fresh block copies zeros", () => {
    a.leave_secret(x());
    expect(b.copy_heap(x()).tolist()).toEqual(none);
    a.leave_secret(x());
    expect(a.copy_heap(x()).tolist()).toEqual(none);
  });

  it("after a default-mode library's call too", () => {
    lib("heap_hygiene_a").leave_secret(x());
    expect(b.copy_heap(x()).tolist()).toEqual(none);
  });
});
