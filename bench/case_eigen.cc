// bench/case_eigen.cc - Eigen 3.4 as a peer: C.noalias() = A * B on Eigen::Map views of the
// row-major buffers (no copies).
//
// This translation unit, and only this one, is compiled with -march=x86-64-v4 -O3 -DNDEBUG on x86
// (see bench/CMakeLists.txt) so Eigen uses its AVX-512 kernels; the driver never calls into it
// unless the CPU supports x86-64-v4 (needs_x86_64_v4 below). Eigen is single-threaded here: it only
// threads with OpenMP, and EIGEN_DONT_PARALLELIZE makes sure it doesn't.
#define EIGEN_DONT_PARALLELIZE
#include "bench.h"

#include <cstdio>
#include <new>

#include <Eigen/Core>

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct EigenCase {
    Eigen::Index m, n, k;
};

void describe(char *buf, size_t len)
{
    std::snprintf(buf, len, "Eigen %d.%d.%d, %s, 1 thread", EIGEN_WORLD_VERSION,
                  EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION, Eigen::SimdInstructionSetsInUse());
}

int prepare(const tkb_problem *p, void **state, char *why, size_t whylen)
{
    if (p->nthreads > 1) {
        std::snprintf(why, whylen, "single-threaded build");
        return TKB_UNSUPPORTED;
    }
    EigenCase *s = new (std::nothrow) EigenCase{Eigen::Index(p->m), Eigen::Index(p->n),
                                                Eigen::Index(p->k)};
    if (!s) {
        std::snprintf(why, whylen, "out of memory");
        return TKB_FAILED;
    }
    *state = s;
    return TKB_OK;
}

int run(void *state, const float *a, const float *b, float *c)
{
    const EigenCase *s = static_cast<const EigenCase *>(state);
    Eigen::Map<const RowMatrix> A(a, s->m, s->k);
    Eigen::Map<const RowMatrix> B(b, s->k, s->n);
    Eigen::Map<RowMatrix> C(c, s->m, s->n);
    C.noalias() = A * B; // noalias: C does not overlap A or B, so no temporary
    return 0;
}

void release(void *state) { delete static_cast<EigenCase *>(state); }

} // namespace

#ifdef TKB_EIGEN_X86_64_V4
#define TKB_EIGEN_NEEDS_V4 1 // built with -march=x86-64-v4 (set by bench/CMakeLists.txt)
#else
#define TKB_EIGEN_NEEDS_V4 0
#endif

extern "C" const tkb_lib tkb_lib_eigen = {
    "eigen", 1, 1, TKB_EIGEN_NEEDS_V4, describe, prepare, run, release,
};
