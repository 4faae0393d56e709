"""The runs :mod:`.flow` needs of a model: every layer's attention, its W_O maps, and its
hidden states as run and with one token's value zeroed in one layer or in all of them
(the BERT path's explicit forward, or transformers' with its attention watched)."""
from __future__ import annotations

import dataclasses

import numpy as np

from .errors import InputError

__all__ = ["ZeroingRunner"]


class ZeroingRunner:
    """The request's model loaded once, run as trained or with a value zeroed."""

    def __init__(self, req):
        import torch

        from .api import _setup, every_layer_run
        from .device import one_cpu_thread
        from .layers import _attentions_of
        from .model_kinds import HFModelFiles, loaded_weights

        if req.model == "scratch":
            raise InputError("--flow: the scratch model is one seeded layer; there is nothing "
                             "to carry across layers: use minilm or a model folder.")
        if str(req.mask).strip().lower() != "none":
            raise InputError(f"--flow with --mask {req.mask!r}: the flow is the model's own, "
                             "through every layer as it runs; drop the mask.")
        self.setup = setup = dataclasses.replace(_setup(req), layer_spec="auto")
        self.focus = int(setup.focus.index)
        self.ids = torch.tensor([setup.tokens.ids], device=setup.device)
        self.hf = isinstance(setup.kind.files, HFModelFiles)
        dtype = str(setup.dtype).replace("torch.", "")
        self.model = loaded_weights(setup.kind.weights_of, str(setup.device), dtype)
        with one_cpu_thread(), torch.inference_mode():
            self.run = every_layer_run(setup)
            self.attentions = _attentions_of(req.sentence, setup, self.run, False)
        self._hidden: dict = {}

    def out_maps(self) -> list:
        """Every layer's W_O (D x H·d), as numpy."""
        from .bert import to_numpy

        return [to_numpy(self.run.after(n)[0][0]) for n in range(self.attentions.num_layers)]

    def hidden(self, zeroed: tuple | None = None) -> list:
        """The hidden states (the input, then each layer's output: T x D float64) with
        ``zeroed`` = (layer or None for every layer, token)'s value zero there."""
        if zeroed not in self._hidden:
            self._hidden[zeroed] = self._run(zeroed)
        return self._hidden[zeroed]

    def _run(self, zeroed) -> list:
        import torch

        from . import bert
        from .device import one_cpu_thread
        from .hf_models import _WATCH

        with one_cpu_thread(), torch.inference_mode():
            if not self.hf:
                states, _ = bert.forward(self.model, self.ids, [self.ids.shape[1]],
                                         zeroed=zeroed)
            else:
                from .term_watch import values_zeroed

                _WATCH.zeroed, _WATCH.count = zeroed, 0
                try:
                    with values_zeroed(self.model, self.setup.kind.files.family, zeroed):
                        states = self.model(input_ids=self.ids, output_hidden_states=True
                                            ).hidden_states
                finally:
                    _WATCH.zeroed = None
        return [bert.to_numpy(s[0]).astype(np.float64) for s in states]
