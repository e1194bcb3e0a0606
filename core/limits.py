"""Every size limit of the app in one place, so the interface can state them and core can enforce them.

The limits protect one shared server from one session: memory is about V·E floats per weight
snapshot, time about B·T·E per training step.
"""

MAX_VOCAB = 100_000          # rows of W (V)
MAX_EMBEDDING_DIM = 512      # columns of W (E)
MAX_TABLE_FLOATS = 40_000_000  # V·E: the float32 weights themselves
MAX_SENTENCES = 512          # B
MAX_TOKENS_PER_SENTENCE = 256  # T after tokenizing, before padding
MAX_TOKEN_CHARS = 64         # one token's length in characters
MAX_TEXT_CHARS = 200_000     # the whole sentences text area
MAX_TOKEN_LIST_CHARS = MAX_VOCAB * (MAX_TOKEN_CHARS + 8)  # a pasted or uploaded token list: V lines of "token role"
MAX_STEPS_PER_CLICK = 500    # "run N steps"
MAX_CLASSES = 20             # the classes the labels define (core/classes.py)
MAX_CLASS_CHARS = 40         # one label (a class name) in characters
MAX_SEED = 2**31 - 1
SNAPSHOT_BUDGET_FLOATS = 16_000_000  # weight history kept per session (float32 values), thinned past it
MAX_IMPORT_BYTES = 20_000_000       # an imported state file
MAX_EXPORT_BYTES = 600_000_000      # a file built for download (W as CSV at 100k × 300 fits under it; core/exports.py)
MAX_LR = 10.0
MAX_WEIGHT_DECAY = 10.0

# Work, estimated by core/cost.py's cost model before it runs (CPU seconds at one thread):
MAX_STEP_SECONDS = 2.0       # one training step (the generated 100k × 300 preset stays well under it)
MAX_STEP_ACTIVATION_BYTES = 2**30  # what one step's activations may hold
MAX_RUN_SECONDS = 60.0       # one "Run N steps" click
MAX_REPLAY_SECONDS = 15.0    # rebuilding a lab before the page shows it: a share link, an imported file, going back
