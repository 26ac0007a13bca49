// Violation codes reported to the host. host/checks/error-codes.ts holds the same
// numbers, names and meanings; a test checks that the two lists agree.
// The a, b, c arguments of each report are listed beside its code.

export const E_ACCESSOR_INDEX: i32 = 1;        // index, bound, dimension (-1 = flat)
export const E_ACCESSOR_RANK: i32 = 2;         // indices given, tensor rank
export const E_READ_ONLY: i32 = 3;             // kind (KIND_* below), element index
export const E_TENSOR_RANGE: i32 = 4;          // offset, count, numel
export const E_TCM_RANGE: i32 = 5;             // address, bytes, bytes left in its block (-1 freed block, 0 no block)
export const E_TCM_FREE_FOREIGN: i32 = 6;      // address
export const E_TCM_DOUBLE_FREE: i32 = 7;       // address
export const E_TCM_LEAK: i32 = 8;              // blocks, bytes, first address
export const E_TCM_GUARD: i32 = 9;             // block address, block bytes, first bad offset past the end
export const E_STREAM_END: i32 = 10;           // position, numel, 1 if write
export const E_STREAM_CLOSED: i32 = 11;        // 1 if write
export const E_INCOHERENT: i32 = 12;           // requested kind, conflicting kind, policy
export const E_UNINITIALIZED_TCM: i32 = 13;    // tensor offset of the first bad element, TCM address, count
export const E_MULTICORE_ACCESSOR: i32 = 14;   // kind (0 element-wise, 1 read stream, 2 write stream)
export const E_HEAP_EXHAUSTED: i32 = 15;       // bytes asked, bytes free, heap size
export const E_STREAM_NOT_CLOSED: i32 = 16;    // elements never flushed
export const E_DTYPE_MISMATCH: i32 = 17;       // element bytes of T, 1 if T is float, 0
export const E_TOO_MANY: i32 = 18;             // what (0 streams, 1 TCM blocks, 2 tensors), limit
export const E_WRITE_NOT_OUTPUT: i32 = 19;     // 0
export const E_NO_OUTPUT: i32 = 21;            // 0
export const E_SHAPE: i32 = 22;                // what (0 shapes differ, 1 dtypes differ, 2 too many dims, 3 bad dtype, 4 bad size), a, b
export const E_STALE_ACCESSOR: i32 = 23;      // handle serial, latest serial, ring size
export const E_TENSOR_OP: i32 = 24;           // what (TOP_* below), operation (OP_* + 100 * form, below), detail (see TOP_*)
export const E_STOPPED: i32 = 25;             // 0 (the host asked the kernel to stop: its timeout passed)
export const E_TCM_UNWRITTEN_READ: i32 = 33;  // 0, 0, 0: a kernel load of TCM nothing wrote since tcm_malloc (address, bytes, first unwritten byte: globals gpsimd_own_report_*)
export const E_FOREIGN_STORE: i32 = 34;       // 0, 0, 0: a kernel store outside what the call owns (address, bytes: globals gpsimd_own_report_*)

// Kinds named in E_INCOHERENT / E_MULTICORE_ACCESSOR / E_READ_ONLY reports.
export const KIND_ELEMENTWISE: i32 = 0;
export const KIND_READ_STREAM: i32 = 1;
export const KIND_WRITE_STREAM: i32 = 2;
export const KIND_TCM: i32 = 3;

// What an E_TENSOR_OP report is about, and what its detail number is.
export const TOP_SHAPES: i32 = 0;          // shapes differ; slot of the tensor compared against
export const TOP_DTYPES: i32 = 1;          // operand dtypes differ; slot of the tensor compared against
export const TOP_RESULT_DTYPE: i32 = 2;    // result dtype is not the operands'; the dtype required
export const TOP_RESULT_FLOAT: i32 = 3;    // result is not float32 where integral operands give float32; the dtype required
export const TOP_NOT_INTEGRAL: i32 = 4;    // bitwise operation on a floating tensor; its dtype
export const TOP_READ_ONLY: i32 = 5;       // result (or fill_ target) is an operator input; 0
export const TOP_NEGATIVE_POWER: i32 = 6;  // integral tensor to a negative integral Scalar power; the exponent
export const TOP_FLOAT_ALPHA: i32 = 7;     // floating alpha with integral operands; alpha

// Operations named in E_TENSOR_OP reports; the report adds 100 * form (0 X, 1 X_out, 2 X_scalar, 3 X_scalar_out,
// 4 scalar_X, 5 scalar_X_out). The host spells the name from the constant's: OP_BITWISE_AND is "bitwise_and".
// OP_ABS to OP_EXP keep this order: tensor-ops.ts maps them onto the float loops by offset.
export const OP_FILL_: i32 = 0;
export const OP_ABS: i32 = 1;
export const OP_CEIL: i32 = 2;
export const OP_FLOOR: i32 = 3;
export const OP_SIN: i32 = 4;
export const OP_COS: i32 = 5;
export const OP_TAN: i32 = 6;
export const OP_LOG: i32 = 7;
export const OP_LOG2: i32 = 8;
export const OP_LOG10: i32 = 9;
export const OP_EXP: i32 = 10;
export const OP_POW: i32 = 11;
export const OP_CLAMP: i32 = 12;
export const OP_ADD: i32 = 13;
export const OP_SUB: i32 = 14;
export const OP_MUL: i32 = 15;
export const OP_DIV: i32 = 16;
export const OP_BITWISE_AND: i32 = 17;
export const OP_BITWISE_OR: i32 = 18;
export const OP_BITWISE_NOT: i32 = 19;
