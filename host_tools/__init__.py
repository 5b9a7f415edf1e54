"""The host tools: commands (``cmd_*``, run as ``python -m host_tools <command>``) and the rooms they draw on.

``REPO_ROOT`` is the folder holding ``host_tools/``, ``firmware/`` and ``hardware/``: a checkout,
or the site-packages folder where ``pip install .`` puts all three.
"""

import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
