"""The text keys of the stage's data contract (components/stage/README.md, CONTRACT.md): the labels the
JavaScript reads from ``data["text"]``, each one a string of assets/strings (``stage.<key>``).

The checks of the whole contract are for tests: support/stage_contract.py.
"""

TEXT_KEYS = ("pad", "unk", "unused", "used", "selected", "step", "loss", "w_title", "scatter_title",
             "ids_title", "out_title", "touched", "pad_zero_grad", "legend_title", "class_prefix")
