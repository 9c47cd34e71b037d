"""`python -m karyi` runs the command line."""

import sys

from karyi.main import main

sys.exit(main())
