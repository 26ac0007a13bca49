// The libtorch a Neuron author writes builds and means what it means in libtorch: TORCH_CHECK (a ShapeFunctionError
// in a shape function, a KernelAbortError in a kernel, each with its message and .cpp line), c10::irange, at:: as
// torch::, item<T>(), is_contiguous()/contiguous(), AT_DISPATCH_* over gpsimd's dtypes; a header next to the source
// and one under extra_include_paths are found; data_ptr is a compile error saying what to write, and a global
// object with a constructor is a BuildError naming its line (never a later trap), whatever the file is called.
import { describe, it, expect, afterAll } from "vitest";
import {
  custom_op, ops, tensor, shutdown, kInt, kBFloat16, kHalf, BuildError, KernelAbortError, ShapeFunctionError, type Library,
} from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, expectGpsimdError, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("cpp-libtorch", name);
const lib: Library = custom_op.load({
  name: "cpp_libtorch", compute_srcs: [file("libtorch.cpp")], shape_srcs: [file("shape.cpp")],
  extra_include_paths: [file("extra-include")], build_directory: TEST_BUILD_DIR,
});
afterAll(async () => { lib.unload(); await shutdown(); });

describe("libtorch spellings in C++ kernels and shape functions", () => {
  it("headers next to the source and under extra_include_paths are found; at::, c10::irange and TORCH_CHECK pass through", () => {
    // scaled() is tcm_utils.h's, LT_OFFSET is extra-include/lt/offsets.h's: x * s + 0.5
    expect(ops.cpp_libtorch.checked_scale(tensor([1, 2, 3]), 2).tolist()).toEqual([2.5, 4.5, 6.5]);
  });

  it("a failing TORCH_CHECK in a kernel is a KernelAbortError with the check's message and its .cpp line", () => {
    const e = expectGpsimdError(() => ops.cpp_libtorch.checked_scale(tensor([[1, 2], [3, 4]]), 2), KernelAbortError, "E_ABORT", [
      "TORCH_CHECK(x.dim() == 1) failed: checked_scale expects a 1-d tensor, got 2-d with sizes [2, 2]", "libtorch.cpp:11",
    ]);
    expect(e.details.line).toBe(11);
    expectGpsimdError(() => ops.cpp_libtorch.checked_scale(tensor([1]), -0.25), KernelAbortError, "E_ABORT", [
      "TORCH_CHECK(s > 0) failed: scale must be positive, got -0.25", "libtorch.cpp:12",
    ]);
  });

  it("a failing TORCH_CHECK in a shape function is a ShapeFunctionError with the message and the shape source's line", () => {
    const e = expectGpsimdError(() => ops.cpp_libtorch.checked_scale(tensor([]), 1), ShapeFunctionError, "E_SHAPE_FN_CHECK", [
      "cpp_libtorch::checked_scale", "TORCH_CHECK(x.numel() > 0) failed: checked_scale needs a non-empty tensor, got sizes [0]", "shape.cpp:8",
    ]);
    expect(e.details).toMatchObject({ line: 8 });
    expectGpsimdError(() => ops.cpp_libtorch.item_plus(tensor([1, 2]), tensor([3, 4])), ShapeFunctionError, "E_SHAPE_FN_CHECK", [
      "TORCH_CHECK_EQ(s.numel() == 1) failed: Check failed: s.numel() == 1 (2 vs. 1)", "shape.cpp:18",
    ]);
  });

  it("AT_DISPATCH_FLOATING_TYPES_AND2 runs the dtype's instance; a dtype it does not cover fails as libtorch's does", () => {
    expect(ops.cpp_libtorch.dispatch_twice(tensor([1, 2.5])).tolist()).toEqual([2, 5]);
    expect(ops.cpp_libtorch.dispatch_twice(tensor([1.5, -3], undefined, kBFloat16)).tolist()).toEqual([3, -6]);
    expect(ops.cpp_libtorch.dispatch_twice(tensor([0.25, 4], undefined, kHalf)).tolist()).toEqual([0.5, 8]);
    expectGpsimdError(() => ops.cpp_libtorch.dispatch_twice(tensor([1, 2], undefined, kInt)), KernelAbortError, "E_ABORT", [
      "\"dispatch_twice\" not implemented for 'Int'", "libtorch.cpp:28",
    ]);
    // In a shape function: a ShapeFunctionError at the macro's line.
    expectGpsimdError(() => ops.cpp_libtorch.item_plus(tensor([1, 2], undefined, kInt), tensor([3])), ShapeFunctionError, "E_SHAPE_FN_CHECK", [
      "\"item_plus\" not implemented for 'Int'", "shape.cpp:17",
    ]);
  });

  it("item<T>() reads a one-element tensor in a kernel (converting its dtype); is_contiguous()/contiguous() hold", () => {
    expect(ops.cpp_libtorch.item_plus(tensor([1, 2]), tensor([3], undefined, kInt)).tolist()).toEqual([4, 5]);
    expect(ops.cpp_libtorch.item_plus(tensor([1, 2]), tensor([[0.5]])).tolist()).toEqual([1.5, 2.5]);
    // A shape function's tensors have no data: item() there is the shape function's data error.
    expectGpsimdError(() => ops.cpp_libtorch.item_in_shape(tensor([1, 2]), tensor([3])), ShapeFunctionError, "E_SHAPE_FN", ["this tensor has no data (the shape function called accessor<float, N>() or item<float>(), which only kernels can)"]);
  });
});

describe("what cannot work is a build error at the line", () => {
  it("data_ptr<T>() is a compile error naming the kernel's line and saying what to write", () => {
    const e = thrown(() => custom_op.load({
      name: "cpp_libtorch_data_ptr", compute_srcs: [file("data-ptr.cpp")], shape_srcs: [file("data-ptr-shape.ts")], build_directory: TEST_BUILD_DIR,
    }));
    expect(e).toBeInstanceOf(BuildError);
    const message = (e as BuildError).message;
    expect(message).toContain("data-ptr.cpp:6:");
    expect(message).toContain("data_ptr<T>(): a tensor's data is in the device's HBM");
    expect(message).toContain("tensor_to_tcm<float>(tcm_buffer, offset, count)");
  });

  it("a global std::vector with a constructor, in a file whose name clang respells (my-globals.cpp), is a BuildError at its line", () => {
    const e = thrown(() => custom_op.load({
      name: "cpp_libtorch_globals", compute_srcs: [file("my-globals.cpp")], shape_srcs: [file("my-globals-shape.ts")], build_directory: TEST_BUILD_DIR,
    }));
    expect(e).toBeInstanceOf(BuildError);
    expect((e as BuildError).message).toContain(`${file("my-globals.cpp")}:5: error: a global object with a constructor is not available`);
  });
});
