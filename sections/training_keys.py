"""The training view's widget keys as its components take them: session.Keys, named per component."""

from __future__ import annotations

from components.predict import PredictKeys
from components.training import TrainKeys
from session import Keys

TRAIN = TrainKeys(step=Keys.STEP, n_steps=Keys.N_STEPS, run=Keys.RUN_STEPS, play=Keys.PLAY, speed=Keys.PLAY_SPEED,
                  reset=Keys.RESET, knobs=Keys.KNOBS, pad_editor=Keys.PAD_EDITOR, pad_vector=Keys.PAD_VECTOR,
                  set_pad=Keys.SET_PAD, loss_chart=Keys.LOSS_CHART, timeline=Keys.TIMELINE)
PREDICT = PredictKeys(popover=Keys.PREDICT, rows=Keys.PREDICT_ROWS, pad=Keys.PREDICT_PAD, loss=Keys.PREDICT_LOSS,
                      verdicts=Keys.PREDICT_VERDICTS)
