// <torch/extension.h> of libtorch: on gpsimd, one header has the kernel API (<torch/torch.h>).
#pragma once
#include <torch/torch.h>
