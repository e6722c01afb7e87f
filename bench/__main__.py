"""``python -m bench``: the whole suite (see :mod:`bench.run`)."""

import sys

from bench.run import main

sys.exit(main())
