"""The host tools: commands (``cmd_*``, run as ``python -m host_tools <command>``) and the rooms they draw on.

``REPO_ROOT`` is the folder holding ``host_tools/``, ``firmware/`` and ``hardware/``: a checkout,
or the site-packages folder where ``pip install .`` puts all three.
"""

import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def prog(command):
    """``command`` as the user runs it, for usage lines and hints: ``nardy soak`` when run as the
    ``nardy`` console command, else ``python -m host_tools soak``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return ("nardy " if name.startswith("nardy") else "python -m host_tools ") + command
