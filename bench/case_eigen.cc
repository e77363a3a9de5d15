// bench/case_eigen.cc - Eigen 3.4 as a peer: C.noalias() = A * B on Eigen::Map views of the
// row-major buffers (no copies).
//
// On x86 this translation unit, and only this one, is compiled with -O3 -DNDEBUG and the highest of
// -march=x86-64-v4 (Eigen's AVX-512 kernels) and -march=x86-64-v3 (its AVX2/FMA kernels) that the
// build host runs (see bench/CMakeLists.txt), so Eigen is a peer on AVX2-only hosts too, with the
// kernels it would pick there; one build per binary, because two builds of Eigen's templates with
// different -march in one program would share (and mix) their inline functions at link time. The
// driver never calls into it on a CPU below the level it was built for (needs_x86_level below).
// Eigen is single-threaded here: it only threads with OpenMP, and EIGEN_DONT_PARALLELIZE makes sure
// it doesn't.
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

// TKB_EIGEN_X86_LEVEL (4 or 3, set by bench/CMakeLists.txt with the matching -march) names the
// x86-64 level this TU was built for; 0 elsewhere.
#ifndef TKB_EIGEN_X86_LEVEL
#define TKB_EIGEN_X86_LEVEL 0
#endif

extern "C" const tkb_lib tkb_lib_eigen = {
    "eigen", 1, 1, TKB_EIGEN_X86_LEVEL, describe, prepare, run, release,
};
