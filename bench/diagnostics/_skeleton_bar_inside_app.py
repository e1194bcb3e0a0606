"""_skeleton_app.py with its bar inside the stage's part (``SKELETON_BAR=inside``), for ab_load.py,
which gives every ``--app`` the same environment: the floor of the training view as it was before
the bar's callbacks named the stage's part."""

import os
import runpy
from pathlib import Path

os.environ["SKELETON_BAR"] = "inside"
runpy.run_path(str(Path(__file__).with_name("_skeleton_app.py")), run_name="__main__")
