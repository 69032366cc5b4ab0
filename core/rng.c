#include "rng.h"

#include <math.h>

double rf_rng_normal(rf_rng *r)
{
    double u1 = rf_rng_uniform(r), u2 = rf_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}
