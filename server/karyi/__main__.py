"""`python -m karyi` runs the command line."""

import sys

from karyi.cli import main

sys.exit(main())
