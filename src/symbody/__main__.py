"""``python -m symbody``: the command-line interface (same as the ``symbody`` script)."""

import sys

from .cli import main

sys.exit(main())
