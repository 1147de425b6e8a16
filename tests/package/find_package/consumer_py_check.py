"""Imports the consumer_py module (directory in argv[1]) and checks a zero-copy round trip."""
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
import consumer_py  # noqa: E402

a = np.arange(6, dtype=np.float32).reshape(2, 3)
r = consumer_py.flip_rows(a)
assert np.array_equal(r, a[::-1]), r
assert np.shares_memory(r, a) and not r.flags.writeable
print("strided consumer_py: ok")
