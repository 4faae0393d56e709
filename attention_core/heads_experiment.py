"""The seeds' experiment: one small classifier per head count, trained on the same split,
measured for validation accuracy, time per epoch, parameters and peak memory.

The classifier is the seed's ``MultiHeadAttention`` (:func:`scratch.build_module`) in
``layers`` post-norm blocks (attention, residual, LayerNorm: the original Transformer's
order, no feed-forward part, so the heads are all that differs), over a word embedding
learnt from scratch plus the sine and cosine positions; the tokens' mean (padding left
out) goes to a linear map onto the labels. Everything is seeded: the same seed on the same
device and thread count gives the same numbers.
"""
from __future__ import annotations

import contextlib
import math
import os
import platform
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, replace

from ..facts import DTYPES, EXPERIMENT_DEFAULTS, EXPERIMENT_RANGES, SEED_RANGE
from .errors import InputError
from .labelled_text import Split, encode
from .scratch import build_module, sinusoidal_positions

__all__ = ["Config", "MEMORY_TOKENS", "Run", "SweepSpec", "build_classifier", "configs_of",
           "machine", "step_peak_bytes", "sweep", "train_config", "vocabulary"]

MEMORY_TOKENS = (16, 32, 64)     # memory is also measured at these lengths

PAD, UNKNOWN = 0, 1           # the first two rows of the learnt embedding


@dataclass(frozen=True)
class SweepSpec:
    """What one sweep trains: the head counts and everything that stays fixed."""
    heads: tuple[int, ...] = EXPERIMENT_DEFAULTS["heads"]
    d_model: int = EXPERIMENT_DEFAULTS["d_model"]
    layers: int = EXPERIMENT_DEFAULTS["layers"]
    epochs: int = EXPERIMENT_DEFAULTS["epochs"]
    seed: int = EXPERIMENT_DEFAULTS["seed"]
    repeats: int = EXPERIMENT_DEFAULTS["repeats"]
    balance: bool = False
    batch_size: int = 32
    max_tokens: int = 64
    learning_rate: float = 5e-4
    dropout: float = 0.1
    limit: int | None = None          # examples kept before the split (None: all)
    device: str = "cpu"
    dtype: str = EXPERIMENT_DEFAULTS["dtype"]

    def check(self) -> "SweepSpec":
        """The spec, checked, with its head counts in increasing order (the verdicts read
        the first as the fewest and the last as the most)."""
        if not self.heads or min(self.heads) < 1 or len(set(self.heads)) != len(self.heads):
            raise InputError(f"--heads {','.join(map(str, self.heads))}: give distinct positive "
                             "head counts, e.g. --heads 1,4,8,16.")
        for field_name, (low, high) in EXPERIMENT_RANGES.items():
            value, name = getattr(self, field_name), "--" + field_name.replace("_", "-")
            if not low <= value <= high:
                raise InputError(f"{name} {value} is out of range; give {low} to {high}.")
        if not SEED_RANGE[0] <= self.seed <= SEED_RANGE[1] - self.repeats + 1:
            raise InputError(f"--seed {self.seed} is out of range; give {SEED_RANGE[0]} to "
                             f"{SEED_RANGE[1] - self.repeats + 1} (the runs take it and the "
                             f"{self.repeats - 1} after it).")
        if self.dtype not in DTYPES:
            raise InputError(f"--dtype {self.dtype} is unknown; use {', '.join(DTYPES)}.")
        if not 8 <= self.max_tokens <= 512:
            raise InputError(f"--max-tokens {self.max_tokens} is out of range; give 8 to 512.")
        for h in self.heads:
            if self.balance and self.d_model // h < 1:
                raise InputError(f"--heads {h} leaves no dimension per head at --d-model "
                                 f"{self.d_model}; give fewer heads.")
            if not self.balance and self.d_model % h:
                raise InputError(f"--heads {h} does not divide --d-model {self.d_model}; give "
                                 "divisors, or --balance for d_head = d_model // heads.")
        return replace(self, heads=tuple(sorted(self.heads)))


@dataclass(frozen=True)
class Config:
    """One head count: its d_head and the width of its Q, K and V."""
    heads: int
    d_head: int

    @property
    def width(self) -> int:
        return self.heads * self.d_head


def configs_of(spec: SweepSpec) -> list[Config]:
    """d_head = d_model / heads; with ``balance`` (seed 001 §7.2), d_model // heads, so
    counts that do not divide d_model keep about the same parameters."""
    return [Config(h, spec.d_model // h) for h in spec.heads]


@dataclass
class Run:
    """One configuration trained with one seed."""
    heads: int
    d_head: int
    seed: int
    accuracy: float
    epoch_seconds: list[float]
    parameters: int
    attention_parameters: int
    peak_bytes: int                   # filled in by :func:`sweep` (a fresh model's step)
    losses: list[float] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def vocabulary(split: Split, tokenizer, max_tokens: int):
    """The training texts' token ids renumbered densely (ids 2…; 0 pads, 1 is a token
    never seen in training), and both parts encoded with it: the embedding then has a row
    per token the classifier can learn, not the tokenizer's whole vocabulary."""
    train_ids = encode(split.train.texts, tokenizer, max_tokens)
    val_ids = encode(split.validation.texts, tokenizer, max_tokens)
    table: dict[int, int] = {}
    for ids in train_ids:
        for i in ids:
            table.setdefault(i, len(table) + 2)
    dense = [[table.get(i, UNKNOWN) for i in ids] for ids in train_ids]
    val = [[table.get(i, UNKNOWN) for i in ids] for ids in val_ids]
    return len(table) + 2, dense, val


@contextlib.contextmanager
def _seeded(seed: int, device):
    """torch's random streams seeded for what runs inside, and put back afterwards (the
    caller's draws are not moved by an experiment's)."""
    import torch

    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        yield


def build_classifier(vocab_size: int, labels: int, spec: SweepSpec, config: Config):
    """The classifier (see the module's text), on the CPU, weights not yet drawn."""
    import torch.nn as nn

    class HeadsClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, spec.d_model, padding_idx=PAD)
            nn.init.normal_(self.embed.weight, std=spec.d_model ** -0.5)
            self.register_buffer("positions", sinusoidal_positions(spec.max_tokens, spec.d_model),
                                 persistent=False)
            self.attention = nn.ModuleList(build_module(spec.d_model, config.heads, config.d_head)
                                           for _ in range(spec.layers))
            self.norms = nn.ModuleList(nn.LayerNorm(spec.d_model) for _ in range(spec.layers))
            self.drop = nn.Dropout(spec.dropout)
            self.out = nn.Linear(spec.d_model, labels)

        def forward(self, ids, keep):
            """ids, keep: B x T (keep: True on real tokens)."""
            x = self.embed(ids) * math.sqrt(spec.d_model) + self.positions[: ids.shape[1]]
            x = self.drop(x)
            blocked = ~keep[:, None, None, :]          # padding is never a key
            for attend, norm in zip(self.attention, self.norms):
                x = norm(x + self.drop(attend(x, blocked)))
            mask = keep[..., None].to(x.dtype)
            return self.out((x * mask).sum(1) / mask.sum(1))

    return HeadsClassifier()


def _batches(ids: list[list[int]], labels, batch_size: int, rng, device, shuffle: bool):
    """Padded batches; for training, shuffled, then sorted by length in pools of 50
    batches so that little of each batch is padding."""
    import torch

    order = list(range(len(ids)))
    if shuffle:
        order = torch.randperm(len(ids), generator=rng).tolist()
        pool = batch_size * 50
        order = [i for s in range(0, len(order), pool)
                 for i in sorted(order[s:s + pool], key=lambda i: len(ids[i]))]
    chunks = [order[s:s + batch_size] for s in range(0, len(order), batch_size)]
    if shuffle:
        chunks = [chunks[i] for i in torch.randperm(len(chunks), generator=rng).tolist()]
    for chunk in chunks:
        width = max(len(ids[i]) for i in chunk)
        padded = torch.full((len(chunk), width), PAD, dtype=torch.long)
        for row, i in enumerate(chunk):
            padded[row, : len(ids[i])] = torch.tensor(ids[i])
        yield (padded.to(device), (padded != PAD).to(device),
               torch.tensor([labels[i] for i in chunk], device=device))


def _autocast(device, dtype: str):
    import torch

    if dtype == "float32":
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=getattr(torch, dtype))


def _step(model, optimiser, batch, device, dtype: str, scaler=None) -> float:
    """One training step; float16 scales the loss (``scaler``) so small gradients do
    not underflow."""
    import torch

    ids, keep, labels = batch
    with _autocast(device, dtype):
        loss = torch.nn.functional.cross_entropy(model(ids, keep).float(), labels)
    optimiser.zero_grad(set_to_none=True)
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimiser)
        scaler.update()
    else:
        loss.backward()
        optimiser.step()
    return float(loss.detach())


def accuracy(model, ids, labels, spec: SweepSpec, device) -> float:
    import torch

    model.eval()
    right = 0
    with torch.no_grad():
        for batch_ids, keep, truth in _batches(ids, labels, 256, None, device, shuffle=False):
            with _autocast(device, spec.dtype):
                right += int((model(batch_ids, keep).argmax(-1) == truth).sum())
    model.train()
    return right / len(ids)


def _forward_backward(model, batch, device, dtype: str) -> None:
    import torch

    ids, keep, labels = batch
    model.zero_grad(set_to_none=False)     # the gradients stay where they are
    with _autocast(device, dtype):
        loss = torch.nn.functional.cross_entropy(model(ids, keep).float(), labels)
    loss.backward()


def step_peak_bytes(model, batch_size: int, tokens: int, device, dtype: str) -> int:
    """The memory a training step's forward and backward pass take at their peak, above
    the model's weights and gradients (made by a pass before): the activations autograd
    keeps, each head's T x T scores and weights among them, and the pass's temporaries,
    for a batch of ``batch_size`` sentences of ``tokens`` tokens. The gradients and the
    optimiser's state are the parameters' size, the same for every head count at one
    d_model, and are left out. CUDA: the allocator's peak
    (``torch.cuda.max_memory_allocated``); CPU: torch.profiler's allocation events."""
    import torch

    ids = torch.full((batch_size, tokens), UNKNOWN + 1, dtype=torch.long, device=device)
    batch = (ids, torch.ones_like(ids, dtype=torch.bool),
             torch.zeros(batch_size, dtype=torch.long, device=device))
    model.eval()                      # no dropout draws: the training's random stream stays
    try:
        _forward_backward(model, batch, device, dtype)      # the gradients are made
        if device.type == "cuda":
            torch.cuda.synchronize(device)
            before = torch.cuda.memory_allocated(device)
            torch.cuda.reset_peak_memory_stats(device)
            _forward_backward(model, batch, device, dtype)
            torch.cuda.synchronize(device)
            return int(torch.cuda.max_memory_allocated(device) - before)
        return _profiled_peak(lambda: _forward_backward(model, batch, device, dtype))
    finally:
        model.zero_grad(set_to_none=True)
        model.train()


@contextlib.contextmanager
def _profiler_lines_dropped():
    """The profiler's C++ side writes its own lines to stderr (``USDT: … profiler_start``,
    and a warning for a block freed that it saw allocated before it started) whatever the
    log level: stderr goes to a file meanwhile, and what else was written there is passed
    on."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [line for line in caught.read().decode(errors="replace").splitlines(True)
                    if not line.startswith(("USDT:", "STAGE:"))
                    and "profiler results will not include" not in line]
            if kept:
                sys.stderr.write("".join(kept))


def _profiled_peak(work) -> int:
    """The most memory ``work`` held at once, from the allocation events' running total
    (torch's own figure, reached through the event tree: the public EventList keeps only
    each operator's net memory). That total is kept across profiling sessions and misses
    frees made between them, so it is taken from where this session found it."""
    from torch._C._profiler import _EventType
    from torch.profiler import ProfilerActivity, profile

    with _profiler_lines_dropped(), \
            profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        work()
    events, nodes = [], list(prof.profiler.kineto_results.experimental_event_tree())
    while nodes:
        node = nodes.pop()
        nodes.extend(node.children)
        if node.typed[0] == _EventType.Allocation:
            fields = node.typed[1]
            events.append((node.start_time_ns, fields.total_allocated, fields.alloc_size))
    if not events:
        return 0
    events.sort()
    start = events[0][1] - events[0][2]          # the total before the first event
    return int(max(0, max(total - start for _, total, _ in events)))


def train_config(config: Config, seed: int, spec: SweepSpec, data, *, device,
                 on_step=None) -> Run:
    """Train one configuration from ``seed`` and measure it. ``data``: (vocab_size, train
    ids, train labels, validation ids, validation labels, label count). ``on_step()`` is
    called after each training step."""
    import torch

    vocab_size, train_ids, train_labels, val_ids, val_labels, labels = data
    with _seeded(seed, device):
        model = build_classifier(vocab_size, labels, spec, config).to(device)
        optimiser = torch.optim.AdamW(model.parameters(), lr=spec.learning_rate)
        rng = torch.Generator().manual_seed(seed)
        scaler = torch.amp.GradScaler(device.type) if spec.dtype == "float16" else None
        seconds, losses = [], []
        for _ in range(spec.epochs):
            start, total, steps = time.perf_counter(), 0.0, 0
            for batch in _batches(train_ids, train_labels, spec.batch_size, rng, device, True):
                total += _step(model, optimiser, batch, device, spec.dtype, scaler)
                steps += 1
                if on_step:
                    on_step()
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            seconds.append(time.perf_counter() - start)
            losses.append(total / max(steps, 1))
        acc = accuracy(model, val_ids, val_labels, spec, device)
    attention = sum(p.numel() for p in model.attention.parameters())
    return Run(config.heads, config.d_head, seed, acc, seconds,
               sum(p.numel() for p in model.parameters()), attention, 0, losses)


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine(device) -> dict:
    """What the numbers depend on besides the seeds: the device, its software, threads."""
    import torch

    facts = {"device": str(device), "torch": torch.__version__, "python": platform.python_version(),
             "cpu": _cpu_name(), "cores": os.cpu_count(), "threads": torch.get_num_threads(),
             "cuda": torch.version.cuda}
    if device.type == "cuda":
        facts["gpu"] = torch.cuda.get_device_name(device)
    return facts


def _warm_up(spec: SweepSpec, config: Config, data, device) -> None:
    """A few untimed steps of a throwaway model first: the first configuration's first
    epoch would otherwise also pay for the kernels' and the allocator's start."""
    import torch

    vocab_size, train_ids, train_labels = data[:3]
    with _seeded(0, device):
        model = build_classifier(vocab_size, data[5], spec, config).to(device)
        optimiser = torch.optim.AdamW(model.parameters(), lr=spec.learning_rate)
        rng = torch.Generator().manual_seed(0)
        for n, batch in enumerate(_batches(train_ids, train_labels, spec.batch_size, rng,
                                           device, True)):
            if n == 3:
                break
            _step(model, optimiser, batch, device, spec.dtype)


def sweep(spec: SweepSpec, split: Split, tokenizer, device, progress=None):
    """Every configuration with every seed (``spec.seed``, +1, …), in order. ``progress``
    (optional) has ``start(runs, steps)``, ``step()`` and ``done(run)``. Returns the runs
    and, per head count, the peak memory of a step at each of :data:`MEMORY_TOKENS` below
    ``max_tokens`` and at ``max_tokens`` (a run's ``peak_bytes``)."""
    vocab_size, train_ids, val_ids = vocabulary(split, tokenizer, spec.max_tokens)
    data = (vocab_size, train_ids, split.train.labels, val_ids, split.validation.labels,
            len(split.train.label_names))
    steps = spec.epochs * math.ceil(len(train_ids) / spec.batch_size)
    plan = [(c, spec.seed + n) for c in configs_of(spec) for n in range(spec.repeats)]
    if progress:
        progress.start([(c.heads, seed) for c, seed in plan], steps)
    _warm_up(spec, configs_of(spec)[0], data, device)
    runs, memory = [], {}
    lengths = sorted({t for t in MEMORY_TOKENS if t < spec.max_tokens} | {spec.max_tokens})
    for config, seed in plan:
        run = train_config(config, seed, spec, data, device=device,
                           on_step=progress.step if progress else None)
        if config.heads not in memory:       # measured on a model of its own, untrained
            with _seeded(seed, device):
                model = build_classifier(vocab_size, data[5], spec, config).to(device)
            memory[config.heads] = {
                t: step_peak_bytes(model, spec.batch_size, t, device, spec.dtype)
                for t in lengths}
        run.peak_bytes = memory[config.heads][spec.max_tokens]
        runs.append(run)
        if progress:
            progress.done(run)
    return runs, memory
