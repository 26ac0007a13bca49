// Violation codes reported by the kernel library: the same names and numbers
// as assembly/errors.ts (a test compares the two files).

export const E_ACCESSOR_INDEX = 1;        // index, bound, dimension (-1 = flat)
export const E_ACCESSOR_RANK = 2;         // indices given, tensor rank
export const E_READ_ONLY = 3;             // kind (KIND_* below), element index
export const E_TENSOR_RANGE = 4;          // offset, count, numel
export const E_TCM_RANGE = 5;             // address, bytes, bytes left in its block (-1 freed block, 0 no block)
export const E_TCM_FREE_FOREIGN = 6;      // address
export const E_TCM_DOUBLE_FREE = 7;       // address
export const E_TCM_LEAK = 8;              // blocks, bytes, first address
export const E_TCM_GUARD = 9;             // block address, block bytes, first bad offset past the end
export const E_STREAM_END = 10;           // position, numel, 1 if write
export const E_STREAM_CLOSED = 11;        // 1 if write
export const E_INCOHERENT = 12;           // requested kind, conflicting kind, policy
export const E_UNINITIALIZED_TCM = 13;    // tensor offset of the first bad element, TCM address, count
export const E_MULTICORE_ACCESSOR = 14;   // kind (0 element-wise, 1 read stream, 2 write stream)
export const E_HEAP_EXHAUSTED = 15;       // bytes asked, bytes free, heap size
export const E_STREAM_NOT_CLOSED = 16;    // elements never flushed
export const E_DTYPE_MISMATCH = 17;       // element bytes of T, 1 if T is float, 0
export const E_TOO_MANY = 18;             // what (0 streams, 1 TCM blocks, 2 tensors), limit
export const E_WRITE_NOT_OUTPUT = 19;     // 0
export const E_TCM_SIZE = 20;             // bytes asked
export const E_NO_OUTPUT = 21;            // 0
export const E_SHAPE = 22;                // what (0 shapes differ, 1 dtypes differ, 2 too many dims, 3 bad dtype, 4 bad size), a, b
export const E_STALE_ACCESSOR = 23;      // handle serial, latest serial, ring size

// Kinds named in E_INCOHERENT / E_MULTICORE_ACCESSOR / E_READ_ONLY reports.
export const KIND_ELEMENTWISE = 0;
export const KIND_READ_STREAM = 1;
export const KIND_WRITE_STREAM = 2;
export const KIND_TCM = 3;
