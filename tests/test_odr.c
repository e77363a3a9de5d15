#include "tktest.h"
float tkt_odr_a(const float *a, const float *b, float *c, size_t n);
float tkt_odr_b(const float *a, const float *b, float *c, size_t n);
int main(void)
{
    enum { n = 37 };
    static float a[n * n], b[n * n], c[n * n];
    size_t i;
    tkt_init();
    for (i = 0; i < n * n; i++) a[i] = 1.0f, b[i] = 2.0f;
    TKT_CHECK(tkt_odr_a(a, b, c, n) == 2.0f * n, "unit built with ISA flags computes wrongly");
    TKT_CHECK(tkt_odr_b(a, b, c, n) == 2.0f * n, "unit built without ISA flags computes wrongly");
    return tkt_finish("test_odr");
}
