"""Every key of session state, named once: the widgets' keys (a public interface: AppTest scripts
and docs use them) and the private keys of what a session owns beside its widgets."""

from __future__ import annotations

from core.knobs import KNOBS


class Keys:
    """Stable widget keys (a public interface: docs/scripting.md documents each)."""

    LANG = "lang"
    PRESET = "preset"
    LOAD_PRESET = "load_preset"
    SECTION = "section"
    VOCAB = "vocab"
    VOCAB_START = "vocab_start"  # large vocabularies: the first row of the table's window
    VOCAB_FIND = "vocab_find"  # large vocabularies: jump the window to a token
    TOKEN_LIST, TOKEN_LIST_FILE, TOKEN_LIST_LOAD = "token_list", "token_list_file", "token_list_load"  # bulk vocabulary
    SENTENCES = "sentences"
    PRETRAINED_FILE, PRETRAINED_APPLY = "pretrained_file", "pretrained_apply"  # a vector file into from_pretrained
    PRETRAINED_FREEZE, PRETRAINED_REMOVE = "pretrained_freeze", "pretrained_remove"  # freeze W or train it; back to fresh
    EMBEDDING_DIM = "embedding_dim"
    SEED = "seed"
    PAD_MODE = "pad_mode"
    FIXED_LEN = "fixed_len"
    ID_CELL = "id_cell"
    TOKEN = "selected_token"
    STEP = "step"
    RUN_STEPS = "run_steps"
    N_STEPS = "n_steps"
    PLAY = "play"
    RESET = "reset"
    OPTIMIZER = "optimizer"
    LR = "lr"
    WEIGHT_DECAY = "weight_decay"
    POOLING = "pooling"
    BATCH_SIZE = "batch_size"
    TOKENIZER = "tokenizer"  # whitespace, morpheme or subword (core/tokenize.py)
    SUBWORD_VOCAB = "subword_vocab"  # the subword tokenizer's most pieces
    VOCAB_MIN_COUNT = "vocab_min_count"  # a built vocabulary keeps tokens seen this often
    VOCAB_MAX_SIZE = "vocab_max_size"  # a built vocabulary's most rows
    TIMELINE = "timeline"
    PCA_DIMS = "pca_dims"
    PCA_CHART = "pca_chart"
    PCA_REPLAY = "pca_anim"  # the replay's chart
    LOSS_CHART = "loss_chart"
    OUT_SENTENCE = "out_sentence"
    REPLAY = "replay"
    PAD_VECTOR = "pad_vector"
    PREDICT_ROWS = "predict_rows"  # predict, then reveal (components/predict.py): the rows a Step's gradient touches
    PREDICT_PAD = "predict_pad"  # … whether the PAD row moves (True / False)
    PREDICT_LOSS = "predict_loss"  # … whether the loss of the step's sentences goes down (True / False)
    PREDICT = "predict_step"  # the guesses' popover in the training bar, beside Step
    PREDICT_VERDICTS = "predict_marks"  # the last Step's guesses, each marked right or wrong
    PAD_EDITOR = "pad_editor"  # the expander of the PAD row's text box and Set button (built only while open)
    SET_PAD = "set_pad"
    MODE = "mode"
    LESSON = "lesson"
    LESSON_PREV = "lesson_prev"
    LESSON_NEXT = "lesson_next"
    PREDICT_PREFIX = "predict_"  # + lesson id (C8, C13)
    REVEAL_PREFIX = "reveal_"  # + lesson id
    LESSON_OPEN_PREFIX = "open_"  # + lesson id: its expander in free mode (drawn only while open)
    LESSON_FIGURE_PREFIX = "lesson_figure_"  # + lesson id: the container of its figure (tests measure it)
    LESSONS = "lessons"  # the container of the lessons view (presentation mode's larger text)
    LESSON_HEAD = "lesson_head"  # presentation mode: the row of a lesson's claim, verdict and previous/next
    LESSON_BODY = "lesson_body"  # … and the box under it, which scrolls inside itself (the page does not)
    EXPORT_STATE = "export_state"
    EXPORT_CODE = "export_code"
    CODE_PREVIEW = "code_preview"  # the expander that shows the script (built only while open)
    EXPORT_W_CSV = "export_w_csv"
    EXPORT_PROJECTOR_VECTORS = "export_projector_vectors"
    EXPORT_PROJECTOR_METADATA = "export_projector_metadata"
    EXPORT_NOTEBOOK = "export_notebook"
    IMPORT_STATE = "import_state"
    IMPORT_APPLY = "import_apply"
    PRESENT = "present"  # presentation mode: larger type for a projector
    SIDEBAR_FOLD = "sidebar_fold"  # the component that folds the sidebar when presentation mode goes on
    PLAY_SPEED = "play_speed"  # steps per second while playing
    KNOBS = "knobs"  # the training bar's popover of knobs (built only while open)
    BACK_TO = "back_to"  # after a divergence: go on from the last finite step
    DETAILS = "details"  # the training view's expander of the last step's details
    EDITORS = "editors"  # the expander of the vocabulary table and the sentences
    PAGE_LANG = "page_lang"  # the component that sets <html lang>
    WIDGET_TEXT = "widget_text"  # the component that writes Streamlit's own widget texts in the page's language
    GRID_KEYS = "grid_keys"  # the component that keeps a quick Enter in the vocabulary table from dropping the edit
    KEEPER = "keeper"  # the keeper outside every fragment: its state is {"report": what this browser kept}
    KEEPER_LIVE = "keeper_live"  # the keeper inside the training view's stage fragment: it only writes
    KEEPER_OFFER = "keeper_offer"  # the box that offers the kept work back
    KEEPER_RESTORE = "keeper_restore_"  # + the entry's slot: the button that restores it
    KEEPER_FRESH = "keeper_fresh"  # the button that answers the offer without restoring (start fresh)
    LOOKUP_TABLES = "lookup_tables"  # the lookup view's expander of tables (built only while open)
    PROBLEMS_PREFIX = "problems_"  # + where: the container of one kind of error box (tests find it by key)
    URL_PROBLEMS = "problems_url"  # the box naming the address's values the page could not use
    STAGE = "stage"  # the stage component: its state is {"selected": id, "cell": {"id", "b", "t", "n"}}
    GUIDE = "guide"  # the first-visit guide (components/guide): its state is {"step": 0-4}
    GUIDE_OPEN = "guide_open"  # the sidebar's button that opens the guide again
    REFIT = "refit_frame"  # re-fit the PCA frame on the steps kept so far
    AXIS_FROM, AXIS_TO, AXIS_SET = "axis_from", "axis_to", "axis_set"  # a custom axis from one token to another
    AXIS_PICKER = "axis_picker"  # the popover of the custom axis's two tokens and button (built only while open)
    TRY_SENTENCE = "try_sentence"  # look a new sentence up in the current W (the training batch is unchanged)
    UNK_RATES = "unk_rates"  # the lookup view's expander of each tokenizer's <UNK> rate (built only while open)
    UNDO_RESTART = "undo_restart"  # after an edit restarted training: put back the inputs and steps it replaced
    TRY_PREFIX = "try_"  # + lesson id: that lesson's "try a sentence" box (try_C11)


class Private:
    """The two keys of what a session owns beside its widgets (never a widget's key)."""

    EXPLORER = "_ws"  # this session's core.explorer.Explorer (docs/scripting.md reads it)
    OWN = "_own"  # everything else it keeps between runs: one typed object, session.own.Own


# Widgets whose options are shown through translated labels: Streamlit matches their selection by
# the shown label, so a language switch must hand them their values again. Every choice knob is one.
TRANSLATED_CHOICES = (Keys.PRESET, Keys.PAD_MODE, Keys.SECTION, Keys.MODE, Keys.LESSON, Keys.PLAY_SPEED,
                      *(k.name for k in KNOBS if k.kind == "choice"))
