"""The client's tests import it from its source folder (``pip install -e clients/python``
works too); they need no server and no database."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
