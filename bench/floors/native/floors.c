/* Native floors for the benchmarks, compiled at bench time with the system C
   compiler (bench/floors/native.ts). `floors <workload> <n> <calls>` fills its
   inputs like the W1/W2 generators, runs the workload `calls` times and prints
   the seconds per call of that burst (process start-up is not timed).
   Workloads: giou (n box pairs), relu-fwd, relu-bwd (n floats),
   copy-chunks (n bytes copied once each, 4 KB at a time, into a 16 KB buffer:
   what a TCM kernel's tensor_to_tcm / tcm_to_tensor calls move). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* std::max / std::min as the seed writes them. */
static inline float fmax_(float a, float b) { return a < b ? b : a; }
static inline float fmin_(float a, float b) { return b < a ? b : a; }

static void giou(float *restrict out, const float *restrict p, const float *restrict t, long n) {
  const float eps = 1e-5f;
  for (long i = 0; i < n; i++) {
    const float *a = p + 4 * i, *b = t + 4 * i;
    float area1 = (a[2] - a[0]) * (a[3] - a[1]);
    float area2 = (b[2] - b[0]) * (b[3] - b[1]);
    float iw = fmax_(fmin_(a[2], b[2]) - fmax_(a[0], b[0]), 0.0f);
    float ih = fmax_(fmin_(a[3], b[3]) - fmax_(a[1], b[1]), 0.0f);
    float inter = iw * ih;
    float uni = area1 + area2 - inter;
    float iou = inter / fmax_(uni, eps);
    float ew = fmax_(fmax_(a[2], b[2]) - fmin_(a[0], b[0]), 0.0f);
    float eh = fmax_(fmax_(a[3], b[3]) - fmin_(a[1], b[1]), 0.0f);
    float enclose = fmax_(ew * eh, eps);
    out[i] = iou - (enclose - uni) / enclose;
  }
}

static void relu_fwd(float *restrict out, const float *restrict x, long n) {
  for (long i = 0; i < n; i++) out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static void relu_bwd(float *restrict out, const float *restrict g, const float *restrict x, long n) {
  for (long i = 0; i < n; i++) out[i] = x[i] > 0.0f ? g[i] : 0.0f;
}

static void copy_chunks(char *restrict buf, const char *restrict src, long n) {
  for (long i = 0; i < n; i += 4096) {
    long m = n - i < 4096 ? n - i : 4096;
    memcpy(buf + (i & 12287), src + i, m);
    __asm__ volatile("" : : "r"(buf) : "memory"); /* keep every copy */
  }
}

static unsigned rng = 12345;
static float uniform(void) { rng = rng * 1664525u + 1013904223u; return (rng >> 8) * (1.0f / 16777216.0f); }

int main(int argc, char **argv) {
  double start = 0;
  if (argc != 4) { fprintf(stderr, "usage: floors giou|relu-fwd|relu-bwd|copy-chunks N CALLS\n"); return 2; }
  const char *w = argv[1];
  long n = atol(argv[2]), calls = atol(argv[3]);
  int copy = !strcmp(w, "copy-chunks");
  long elems = copy ? n / 4 + 1024 : 4 * n + 1024; /* copy-chunks: n bytes; the others: n boxes or floats */
  float *a = aligned_alloc(64, elems * sizeof(float));
  float *b = aligned_alloc(64, elems * sizeof(float));
  float *o = aligned_alloc(64, elems * sizeof(float));
  char *buf = aligned_alloc(64, 16384);
  for (long i = 0; i < (copy ? elems / 4 : n); i++) {
    for (int k = 0; k < 2; k++) {
      float *box = (k ? b : a) + 4 * i;
      float x = (float)(int)(uniform() * 255), y = (float)(int)(uniform() * 255);
      float w_ = 1 + (float)(int)(uniform() * 255), h = 1 + (float)(int)(uniform() * 255);
      box[0] = x; box[1] = y; box[2] = x + w_ > 255 ? 255 : x + w_; box[3] = y + h > 255 ? 255 : y + h;
    }
    a[i] = uniform() * 2 - 1; /* relu inputs: random signs */
  }
  /* One untimed call first: the output's pages are faulted in, as they are for the kernels (warm, reused tensors). */
  for (long c = -1; c < calls; c++) {
    if (c == 0) start = now();
    if (!strcmp(w, "giou")) giou(o, a, b, n);
    else if (!strcmp(w, "relu-fwd")) relu_fwd(o, a, n);
    else if (!strcmp(w, "relu-bwd")) relu_bwd(o, b, a, n);
    else if (!strcmp(w, "copy-chunks")) copy_chunks(buf, (const char *)a, n);
    else { fprintf(stderr, "floors: unknown workload %s\n", w); return 2; }
    __asm__ volatile("" : : "r"(o) : "memory");
  }
  double t = (now() - start) / calls; /* calls >= 1 */
  printf("%.9g\n", t);
  return 0;
}
