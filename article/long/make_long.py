#!/usr/bin/env python3
"""Generate the long Distill-runtime article: a complete static site, byte for byte the same on every run.

    python article/long/make_long.py DEST        # writes DEST/index.html and everything it loads

or, from Python, ``build(dest) -> Path`` (the path of ``index.html``).

The page is built the way real articles on the Distill v2 runtime are: its head loads
``assets/distill/template.v2.js``, the vendored fonts and the theme's ``style.css``; its body
has ``d-front-matter``, ``d-title``, ``d-byline``, a ``d-article`` with a sticky ``d-contents``
(a tag no script defines) and about forty sections, and a ``d-appendix`` with a
``d-bibliography``. The prose is generated from word lists and sentence patterns written for
this file, with a fixed-seed generator of its own (no clock, no ``random`` module), so the
output depends on nothing but this file, ``long.js`` and the assets it copies.

What the page exercises, and about how much of it (see README.md beside this file):
~250 ``d-math`` (~25 display), ~33 ``d-code`` blocks (python, bash), 18 note-boxes,
``d-cite`` against a generated ``bibliography.bib``, ``d-footnote``, ``d-figure`` with
onscreen/offscreen listeners, three HTML fragments fetched after load (one chart each), three
animated GIFs, SVG and PNG figures, tables, asides, a third-party iframe and an ``<audio>``
whose source is missing. At 1280 px wide it is about 130 000 px tall once the runtime has run.
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import types
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DIST = REPO / "article" / "dist"
GIF_SCRIPT = REPO / "tests" / "visual" / "pages" / "assets" / "gif" / "make_gif.py"
LONG_JS = HERE / "long.js"

SEED = 0x5EED_1A7E
COPIED_ASSETS = ("distill", "fonts", "katex", "images")

# How much prose: paragraphs in each section's introduction (one more in every third section)
# and under each h3. Tuned so that the page is about 130 000 px tall at 1280 px wide.
INTRO_PARAGRAPHS = 2
SUB_PARAGRAPHS = 4
MATH_SHARE = 0.13      # share of body sentences that carry an inline d-math
CITE_SHARE = 0.045     # share of sentences that end in a d-cite
FOOTNOTE_SHARE = 0.03  # share of sentences that end in a d-footnote (until the pool is used up)


# --------------------------------------------------------------------------- randomness

class Rng:
    """splitmix64: tiny, fast, and the same sequence on every Python version."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self.state = seed & self.MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self.next64() % n

    def chance(self, p: float) -> bool:
        return self.next64() < p * (1 << 64)

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffled(self, seq) -> list:
        out = list(seq)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


class Deck:
    """Draw from a list without repeats until it is used up, then reshuffle."""

    def __init__(self, rng: Rng, items) -> None:
        self.rng, self.items, self.pile = rng, list(items), []

    def draw(self):
        if not self.pile:
            self.pile = self.rng.shuffled(self.items)
        return self.pile.pop()


# --------------------------------------------------------------------------- sections

# (id, h2 title, the topic as a noun phrase, [h3 titles])
SECTIONS = [
    ("launch", "Why count before you launch", "the habit of estimating before launching",
     ["Three budgets, one ledger", "A running example"]),
    ("step", "Anatomy of a training step", "the training step",
     ["Forward, backward, update", "Where the time goes"]),
    ("params", "Counting parameters", "parameter counting",
     ["Attention and feed-forward blocks", "Embeddings and the output layer"]),
    ("formats", "Number formats for training", "the choice of number format",
     ["Exponent and mantissa", "Half precision and its cousins", "Eight bits and below"]),
    ("mixed", "Mixed precision in practice", "mixed precision",
     ["Master weights", "Casting at the right places"]),
    ("scaling", "Loss scaling and overflow", "loss scaling",
     ["Why small gradients vanish", "Dynamic scale factors"]),
    ("optimizer", "The optimizer's share of memory", "the optimizer state",
     ["Two moments per parameter", "Leaner optimizers"]),
    ("activations", "Activations, layer by layer", "activation memory",
     ["What the backward pass needs", "The quadratic term"]),
    ("recompute", "Recomputing instead of storing", "activation recomputation",
     ["Full recomputation", "Selective recomputation", "Choosing checkpoints"]),
    ("accumulate", "Gradient accumulation", "gradient accumulation",
     ["Micro-batches and the global batch", "Accumulation and communication"]),
    ("dp", "Data parallelism", "data parallelism",
     ["Replicas and the average gradient", "When replicas stop helping"]),
    ("collectives", "Collective operations", "collective communication",
     ["Reduce, gather, scatter", "Latency and bandwidth terms"]),
    ("ring", "The ring all-reduce", "the ring all-reduce",
     ["Reduce-scatter then all-gather", "Trees, rings and hierarchies"]),
    ("overlap", "Overlapping communication with compute", "communication overlap",
     ["Buckets", "Streams and priorities"]),
    ("zero1", "Sharding optimizer state", "optimizer-state sharding",
     ["One shard per replica", "Gathering updated weights"]),
    ("zero3", "Sharding gradients and weights", "full sharding",
     ["Gradients first", "Weights on demand", "Prefetching"]),
    ("offload", "Offloading to host memory", "offloading",
     ["The host as a second tier", "When the bus is the bottleneck"]),
    ("tp", "Tensor parallelism", "tensor parallelism",
     ["Splitting a matrix multiply", "Column then row"]),
    ("sp", "Sequence parallelism", "sequence parallelism",
     ["The layers tensor parallelism missed", "Same traffic, less memory"]),
    ("cp", "Context parallelism for long sequences", "context parallelism",
     ["Splitting the sequence", "Passing keys and values around"]),
    ("pp", "Pipeline parallelism", "pipeline parallelism",
     ["Stages and boundaries", "The bubble"]),
    ("schedules", "Pipeline schedules", "pipeline scheduling",
     ["All forward, then all backward", "One forward, one backward", "Interleaved stages"]),
    ("balance", "Balancing pipeline stages", "stage balancing",
     ["The heavy ends", "Measuring per-stage time"]),
    ("moe", "Experts and routing", "expert parallelism",
     ["Sparse layers", "All-to-all traffic", "Capacity and dropped tokens"]),
    ("combine", "Combining parallel dimensions", "combining parallel layouts",
     ["The device mesh", "Which dimension goes where"]),
    ("intra", "The network inside a node", "the fabric inside a node",
     ["Links between cards", "Topology matters"]),
    ("inter", "The network between nodes", "the network between nodes",
     ["Adapters and switches", "Congestion and stragglers"]),
    ("attention", "Attention kernels and tiling", "tiled attention",
     ["The score matrix", "Online softmax"]),
    ("fusion", "Kernel fusion", "kernel fusion",
     ["Memory-bound operations", "Compilers and hand-written kernels"]),
    ("mfu", "Measuring utilisation", "utilisation accounting",
     ["Model FLOPs", "Hardware FLOPs"]),
    ("profiling", "Profiling a step", "profiling",
     ["Reading a timeline", "Gaps, stalls and launches"]),
    ("batch", "Batch size and learning rate", "the batch size",
     ["The critical batch", "Warm-up and schedules"]),
    ("checkpoint", "Checkpointing and restarts", "checkpointing",
     ["What goes into a checkpoint", "Writing without stopping"]),
    ("failures", "Failures at scale", "fault tolerance",
     ["Hardware that breaks", "Numbers that go wrong"]),
    ("data", "Data loading and tokenisation", "the input pipeline",
     ["Keeping the cards fed", "Packing sequences"]),
    ("eval", "Evaluation during training", "evaluation during training",
     ["Cheap signals", "Held-out sets"]),
    ("cost", "Estimating cost before launch", "cost estimation",
     ["Compute from tokens", "From FLOPs to days"]),
    ("worked", "A worked configuration", "the worked configuration",
     ["Does it fit", "How fast will it go", "Choosing the layout"]),
    ("patterns", "Common failure patterns", "debugging",
     ["Slow from the start", "Slow after a while"]),
    ("checklist", "A checklist for launch", "the launch checklist",
     ["Before the first step", "During the first hour"]),
]

STATES = [
    "the optimizer state", "the gradients", "the half-precision weights", "the master copy of the weights",
    "the stored activations", "the attention scores", "the communication buffers", "the key and value tensors",
    "the logits of the last layer", "the embedding table", "the workspace of the matrix kernels",
    "the gathered weights of the current layer",
]
KNOBS = [
    "the micro-batch size", "the sequence length", "the hidden size", "the number of layers",
    "the data-parallel degree", "the tensor-parallel degree", "the number of pipeline stages",
    "the number of micro-batches", "the bucket size", "the vocabulary size", "the number of attention heads",
    "the global batch",
]
RESOURCES = ["memory", "compute", "bandwidth", "wall-clock time", "host memory", "network traffic"]
HARDWARE = [
    "a node of eight cards", "a 400 Gb/s network link", "the links inside a node",
    "a cluster of a thousand cards", "a host with two sockets", "a single rack",
]
CARDS = ["an 80 GB card", "a 40 GB card", "a 24 GB card", "a 141 GB card"]
SCALINGS = [
    "grows linearly with", "grows with the square of", "does not depend on", "shrinks in proportion to",
    "is divided by", "hardly moves with",
]
INLINE_MATH = [
    r"N \approx 12 L h^2", r"16\,\Psi", r"2\,\Psi", r"\Psi / d", r"s \cdot b \cdot h", r"34\, s b h",
    r"5\, a s^2 b", r"(p-1)/m", r"2(d-1)/d", r"M/\beta", r"6 N T", r"t_f + t_b", r"t_b \approx 2 t_f",
    r"k \cdot b \cdot d", r"F_{\text{peak}}", r"Y = XW", r"\nabla_\theta \mathcal{L}", r"\alpha + M/\beta",
    r"O(s^2)", r"O(s)", r"QK^\top / \sqrt{d_k}", r"e^{x_i - \mu}", r"\sqrt{L}", r"12\,\Psi / d",
    r"W \in \mathbb{R}^{h \times 4h}", r"m_t", r"v_t", r"g_t", r"\theta_t", r"\eta_t",
    r"2^{-7}", r"2^{-10}", r"\beta_2 = 0.95", r"\epsilon = 10^{-8}", r"B_{\text{global}}", r"n_{\text{gpu}}",
    r"\text{MFU}", r"r = (p-1)/(m+p-1)", r"c \cdot s / E", r"\lceil L / p \rceil",
]
VALUES = [
    r"h = 4096", r"L = 32", r"s = 4096", r"b = 1", r"k = 8", r"d = 64", r"t = 8", r"p = 4", r"m = 32",
    r"v = 2", r"V = 32000", r"a = 32", r"E = 8", r"b = 4", r"s = 8192", r"t = 4", r"p = 8", r"d = 512",
]
SIZES = [r"N = 7 \times 10^9", r"N = 13 \times 10^9", r"N = 70 \times 10^9", r"L = 80", r"h = 8192"]

OPENERS = [
    "This section is about {T}, and like every entry in the ledger it has a price in {R} and a payoff in {R2}.",
    "The case for {T} is easiest to make in terms of {R}: without it, {S} would sit whole on every card.",
    "Of all the entries in this ledger, {T} is among the easiest to get wrong by a factor of two.",
    "A good way to understand {T} is to ask what breaks first when it is missing.",
    "Most people meet {T} right after their first out-of-memory error, which is a poor moment to learn it.",
    "The arithmetic behind {T} fits on an index card, and it is worth doing before any code is written.",
    "{Tc} changes which of the three budgets binds first, so it is best judged against all three at once.",
    "Before looking at {T} in detail, recall what a single card already holds at the peak of a step.",
]
BODY = [
    "When {K} doubles, the size of {S} {V} it, which is why {K} is often the first knob people reach for.",
    "It is tempting to leave {S} out of the estimate, but on {C} it is often the entry that decides whether a step fits.",
    "The price is paid in {R}: every byte saved here must later be recomputed or sent across a link.",
    "Most teams find this out on the first long run rather than on the short test that came before it.",
    "Profilers report {S} directly, which makes it the easiest entry to compare against the paper estimate.",
    "None of this is peculiar to {T}; the same bookkeeping applies to any layout that trades {R} for {R2}.",
    "In practice the effect is modest until {K} passes a threshold, after which it dominates everything else.",
    "A useful sanity check is to redo the estimate with {K} halved and see whether the conclusion changes.",
    "On {H} the difference between the two choices is measured in minutes per thousand steps.",
    "The error, when it comes, rarely points at the cause: it names the allocation that happened to be last, not the one that was too large.",
    "Frameworks hide most of this machinery, but they cannot hide its cost in {R}.",
    "That is the whole trick, and the rest of this part is about when it stops working.",
    "The same reasoning explains why {S} and {S2} respond so differently as {K} grows.",
    "Reducing {K} helps {R} but hurts {R2}, and no single setting is best for both.",
    "Write the estimate down before launching, even a rough one, because a rough number can be checked and a feeling cannot.",
    "Some of the saving is eaten by fragmentation, so the real peak sits a little above the clean estimate.",
    "Here the bandwidth of {H} sets the pace, not the arithmetic rate of the cards.",
    "A common mistake is to tune {K} in isolation and forget that the size of {S} depends on it as well.",
    "If there is no room for {S}, no amount of tuning elsewhere will make the step run.",
    "Measured on {H}, the overhead stayed below {P} percent in the configurations we tried.",
    "Doubling the hardware does not halve this cost; at best it halves the part that was divided in the first place.",
    "The key quantity here is <strong>{S}</strong>, not the parameter count everyone quotes.",
    "It helps to think of {S} as rent that is paid on every card, every step, whether or not it is used.",
    "Changing {K} moves cost from {R} to {R2}, and the ledger is where that move becomes visible.",
    "There is an <em>order</em> to these decisions: memory first, then time, then the network.",
    "Nothing about this is exotic, which is exactly why it gets skipped when a deadline is near.",
    "Once {K} is fixed, the size of {S} follows from a formula, and the formula is the one in the previous paragraph.",
    "The first run at a new scale should be short and instrumented, so that {S} can be read off rather than guessed.",
    "If the numbers disagree by more than about {P} percent, something in the configuration differs from what was assumed.",
    "In a layout that spans many cards, the slowest participant decides how long everyone waits.",
    "A small change to {K} can flip which budget binds, which is why the estimate has to be redone after every change.",
    "The benefit is real but it is not free: {R2} is the currency that pays for it.",
    "Seen from the ledger, {T} is a way of moving {S} off the card that needs the space.",
]
# sentences that carry inline maths; drawn for about one body sentence in MATH_SHARE
BODY_MATH = [
    "For the running example the quantity that matters is {M}, small enough to check by hand.",
    "The relation {M} is worth remembering, because it turns a vague worry about {R} into a number.",
    "With {MV}, the estimate lands within a few percent of what the allocator reports.",
    "For a model with {MS}, the model state alone is already more than {C} can hold.",
    "Setting {MV} is a reasonable place to start; the right value depends on {K} and on {H}.",
    "Written out, the cost is {M}, and every symbol in it is something the user controls.",
    "The term {M} is the one to watch: small for short sequences, dominant for long ones.",
]
CLOSERS = [
    "The next part puts numbers on this.",
    "Keep this in mind; it returns when the layouts are combined.",
    "In short: measure {S}, estimate {R}, and only then change {K}.",
    "That is enough for a first decision, and a first decision is what a launch needs.",
    "The remaining question is how this interacts with {T}, which the following paragraphs take up.",
    "We will come back to this number when the whole configuration is assembled.",
]
ASIDES = [
    "Round numbers on purpose: the aim is to be within a factor of about 1.3 before submitting anything.",
    "A gigabyte here means a billion bytes. Allocators report binary units, which are about 7 percent larger.",
    "The running example is a 32-layer decoder with a hidden size of 4096 and sequences of 4096 tokens.",
    "Leave ten to fifteen percent of every card unplanned. Fragmentation and library workspaces will find it.",
    "Profiles of a single step lie less than averages over many steps; look at both.",
    "The fastest link in the cluster is almost always inside a node. Put the chattiest dimension there.",
    "Every estimate in this article ignores biases and norms. They are tiny next to the matrices.",
    "Peak arithmetic rates on data sheets assume dense matrices in the most favourable format.",
    "When in doubt, halve the micro-batch and see what moves. It is the cheapest experiment there is.",
    "Numbers quoted per card refer to one accelerator, never to the sum over a node.",
    "Most collectives are bandwidth-bound above a few megabytes and latency-bound below.",
    "A checkpoint is a copy of the ledger's first three entries, written to slower storage.",
    "Sequence length enters the activation budget twice: once linearly, once through attention.",
    "An idle card still draws most of its power. Bubbles cost money as well as time.",
    "Compilers can fuse what they can see. Custom operations are often invisible to them.",
    "Learning-rate warm-up interacts with the batch size; change one and revisit the other.",
    "Measured utilisation below thirty percent usually means a configuration problem, not a hardware one.",
    "Timings in this article are per step unless stated otherwise.",
    "A sharded layout needs every replica to reach each collective. One slow host slows them all.",
    "Token counts, not sample counts, are what the compute estimate needs.",
]
NOTE_TITLES = ["📝 Note", "💡 Tip", "⚠️ Warning", "🔍 Going deeper", "📌 Remember", "🧮 Worked numbers"]
NOTE_TEXTS = [
    "Throughout, memory means the memory of one card. A cluster with a terabyte in total still fails if any single card needs more than its own share.",
    "Reset the peak-memory counter before a step and read it afterwards; the difference between allocated and reserved memory is the allocator's cushion.",
    "An estimate that lands at 79 GB on an 80 GB card is not a configuration that fits. It is one that fails now and then, on the step where fragmentation is worst.",
    "The factor of twelve in the parameter count comes from four square projections in attention and two rectangular ones of four times the width in the feed-forward block.",
    "Keep the two optimizer moments in 32-bit floats. The second moment spans many orders of magnitude and coarse rounding makes the effective step size jump.",
    "With accumulation, reduce gradients only after the last micro-batch of the cycle, or the network carries the same traffic several times over.",
    "Place tensor parallelism inside a node. It communicates inside every layer, twice per pass, and only the fastest links keep up with it.",
    "A pipeline that looks balanced by layer count can be badly unbalanced in time, because the embedding and the output layer sit on the two end stages.",
    "Tiled attention never writes the full score matrix to device memory, which removes the quadratic term from the activation budget.",
    "Model FLOPs utilisation counts only the arithmetic the model needs. Recomputed work makes the card busier without raising it.",
    "Write checkpoints asynchronously: copy the state to host memory, let training continue, and stream it to storage in the background.",
    "When a run slows down after hours, look at data loading and at a single slow host before suspecting the model code.",
    "The all-to-all of expert routing scales with the number of tokens, not with the number of parameters, so longer sequences make it heavier.",
    "Halving the micro-batch halves the activations but not the model state. If the model state alone does not fit, shard it first.",
    "A profile with gaps between kernels and a busy host thread points at launch overhead, not at the network.",
    "For a first estimate, assume forward and backward together cost six operations per parameter per token.",
    "Interleaving pipeline stages divides the bubble by the number of chunks per card, at the price of more point-to-point messages.",
    "Run the full configuration for a few hundred steps before the real launch. Cheap insurance, every time.",
]
FOOTNOTES = [
    "Binary and decimal units differ by about seven percent at the gigabyte scale, which is enough to turn a fit into a miss.",
    "Some frameworks keep a second copy of the gradients during the reduction. Check before trusting a tight estimate.",
    "The exact constant depends on whether dropout masks are stored as bytes or as bits.",
    "This ignores the pipeline's warm-up at the very first step, which is a one-off cost.",
    "The constant six assumes a dense model. Sparse layers touch only the experts each token is routed to.",
    "Latency terms matter for small messages; for gradients of billions of parameters, bandwidth dominates.",
    "Counting a fused multiply-add as two operations, as data sheets do.",
    "A few vendors quote peak rates with structured sparsity, which dense training does not use.",
    "The score <d-math>QK^\\top</d-math> is scaled before the softmax; the scale does not change the memory.",
]
BLOCK_MATH = [
    r"N \approx 12 L h^2 + 2 V h",
    r"m_{\text{state}} = (2 + 2 + 4 + 4 + 4)\,\Psi = 16\,\Psi",
    r"m_{\text{act}}^{\text{layer}} = s\, b\, h \left( 34 + \frac{5\, a\, s}{h} \right)",
    r"\begin{aligned} m_t &= \beta_1 m_{t-1} + (1 - \beta_1)\, g_t \\ v_t &= \beta_2 v_{t-1} + (1 - \beta_2)\, g_t^2 \end{aligned}",
    r"\theta_t = \theta_{t-1} - \eta \, \frac{\hat m_t}{\sqrt{\hat v_t} + \epsilon}",
    r"t_{\text{all-reduce}} \approx 2\,\frac{d - 1}{d} \cdot \frac{M}{\beta}",
    r"r_{\text{bubble}} = \frac{p - 1}{m}",
    r"r_{\text{bubble}}^{\text{interleaved}} = \frac{p - 1}{v \cdot m}",
    r"C_{\text{train}} \approx 6\, N\, T",
    r"C_{\text{layer}}^{\text{fwd}} = 24\, b s h^2 \left( 1 + \frac{s}{6h} \right)",
    r"\text{MFU} = \frac{6\, N \cdot \text{tokens per second}}{n_{\text{gpu}} \cdot F_{\text{peak}}}",
    r"B_{\text{global}} = b \cdot k \cdot d",
    r"\underbrace{4\Psi + \frac{12\Psi}{d}}_{\text{stage 1}}, \qquad \underbrace{2\Psi + \frac{14\Psi}{d}}_{\text{stage 2}}, \qquad \underbrace{\frac{16\Psi}{d}}_{\text{stage 3}}",
    r"Z = \sum_{i=1}^{t} \phi(X A_i)\, B_i",
    r"\mu_j = \max(\mu_{j-1}, x_j), \qquad \ell_j = \ell_{j-1}\, e^{\mu_{j-1} - \mu_j} + e^{x_j - \mu_j}",
    r"\operatorname{softmax}(x)_i = \frac{e^{x_i - \mu}}{\sum_j e^{x_j - \mu}}",
    r"m_{\text{act}}^{\text{tp}} = \frac{s\, b\, h}{t} \left( 34 + \frac{5\, a\, s}{h} \right)",
    r"t_{\text{step}} \approx \max\!\left( t_{\text{compute}},\; t_{\text{comm}} \right) + t_{\text{exposed}}",
    r"n_{\text{gpu}} = d \cdot t \cdot p",
    r"t_{\text{train}} = \frac{6\, N\, T}{n_{\text{gpu}} \cdot F_{\text{peak}} \cdot \text{MFU}}",
    r"\text{tokens per expert} = c \cdot \frac{s \cdot b \cdot k_{\text{top}}}{E}",
    r"\tilde g = \frac{1}{k} \sum_{i=1}^{k} g^{(i)}",
    r"x_{\text{fp16}} = \operatorname{round}(S \cdot x), \qquad S \leftarrow \begin{cases} S / 2 & \text{on overflow} \\ 2 S & \text{after } n \text{ clean steps} \end{cases}",
    r"m_{\text{ckpt}} = (4 + 4 + 4)\,\Psi \quad \text{bytes, without the half-precision copies}",
    r"t_{\text{p2p}} = \alpha + \frac{s\, b\, h \cdot 2}{\beta}",
]
CITE_SURNAMES = [
    "Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Novak", "Ferreira", "Kowalczyk", "Adeyemi",
    "Brennan", "Castillo", "Dubois", "Engel", "Fischer", "Grant", "Hosseini", "Ivanova", "Jensen", "Kaur",
    "Larsen", "Mendes", "Nakamura", "Oduya", "Petrov", "Quinn", "Rossi", "Sato", "Tremblay", "Usman", "Varga",
]
CITE_GIVEN = ["Amara", "Bjorn", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas",
              "Kemi", "Lucia", "Mateo", "Nadia", "Oskar", "Priya", "Rafael", "Sanne", "Tomas", "Yara"]
CITE_OPENERS = ["Scaling", "Revisiting", "Efficient", "Memory-aware", "Communication-efficient", "Towards",
                "Practical", "Rethinking", "Fast", "Robust"]
CITE_TOPICS = [
    ("sharded", "sharded optimizer states"), ("pipeline", "pipeline schedules"), ("tensor", "tensor-parallel transformers"),
    ("recompute", "activation recomputation"), ("mixed", "mixed-precision training"), ("attention", "tiled attention kernels"),
    ("experts", "expert routing"), ("collectives", "collective communication"), ("checkpoint", "asynchronous checkpointing"),
    ("batch", "large-batch optimisation"), ("offload", "host-memory offloading"), ("context", "long-context training"),
    ("fp8", "eight-bit training"), ("profiling", "step-time profiling"), ("faults", "fault-tolerant training"),
]
CITE_GOALS = ["for very large language models", "on GPU clusters", "at the scale of thousands of accelerators",
              "without losing accuracy", "in practice", "with limited memory"]
CITE_VENUES = ["Proceedings of the Workshop on Systems for Learning", "Journal of Parallel Training",
               "Transactions on Accelerated Computing", "Conference on Large-Scale Learning Systems",
               "Symposium on Distributed Numerics"]


# --------------------------------------------------------------------------- code blocks

def code_param_count(r: Rng, i: int) -> tuple[str, str]:
    L, h = r.choice([(24, 2048), (32, 4096), (40, 5120), (48, 6144), (80, 8192)])
    return "python", f'''def parameter_count(layers: int, hidden: int, vocab: int = 32000) -> int:
    """Weights of a decoder-only transformer, ignoring biases and norms."""
    attention = 4 * hidden * hidden          # Q, K, V and output projections
    feed_forward = 2 * hidden * (4 * hidden)  # up and down projections
    embeddings = 2 * vocab * hidden           # input table and output layer
    return layers * (attention + feed_forward) + embeddings


print(f"{{parameter_count({L}, {h}) / 1e9:.2f}} B parameters")
'''


def code_state_memory(r: Rng, i: int) -> tuple[str, str]:
    n = r.choice([7, 13, 34, 70])
    d = r.choice([8, 16, 64, 256])
    return "python", f'''BYTES = {{"weights": 2, "grads": 2, "master": 4, "adam_m": 4, "adam_v": 4}}


def state_per_card(params: float, dp: int, stage: int) -> float:
    """Model state in GB on one card for a sharding stage 0-3."""
    sharded = {{0: (), 1: ("master", "adam_m", "adam_v"),
               2: ("grads", "master", "adam_m", "adam_v"),
               3: tuple(BYTES)}}[stage]
    total = sum(b / dp if k in sharded else b for k, b in BYTES.items())
    return params * total / 1e9


for stage in range(4):
    print(stage, round(state_per_card({n}e9, dp={d}, stage=stage), 1))
'''


def code_activations(r: Rng, i: int) -> tuple[str, str]:
    s = r.choice([2048, 4096, 8192])
    return "python", f'''def activation_bytes(seq: int, batch: int, hidden: int, heads: int,
                     layers: int, tp: int = 1, flash: bool = False) -> float:
    """Stored activations for one micro-batch, in bytes (half precision)."""
    per_layer = seq * batch * hidden * 34
    if not flash:
        per_layer += 5 * heads * seq * seq * batch  # scores, softmax, dropout mask
    return layers * per_layer / tp


gb = activation_bytes({s}, 1, 4096, 32, 32, tp=2, flash=True) / 1e9
print(f"{{gb:.1f}} GB of activations per micro-batch")
'''


def code_allreduce(r: Rng, i: int) -> tuple[str, str]:
    bw = r.choice([25, 50, 100, 200])
    return "python", f'''def ring_allreduce_seconds(nbytes: float, ranks: int, gbytes_per_s: float,
                           latency_s: float = 20e-6) -> float:
    """Time of a ring all-reduce: 2 (n - 1) steps, each moving nbytes / n."""
    steps = 2 * (ranks - 1)
    return steps * (latency_s + nbytes / ranks / (gbytes_per_s * 1e9))


grads = 2 * 7e9  # bf16 gradients of a 7B model
for ranks in (8, 64, 512):
    print(ranks, f"{{ring_allreduce_seconds(grads, ranks, {bw}):.2f}} s")
'''


def code_bubble(r: Rng, i: int) -> tuple[str, str]:
    v = r.choice([1, 2, 4])
    return "python", f'''def bubble_fraction(stages: int, micro_batches: int, chunks: int = {v}) -> float:
    """Idle share of a pipeline step; chunks > 1 means interleaved stages."""
    idle = (stages - 1) / chunks
    return idle / (micro_batches + idle)


for p in (2, 4, 8, 16):
    row = [f"{{bubble_fraction(p, m):.2f}}" for m in (4, 8, 16, 32, 64)]
    print(p, *row)
'''


def code_mfu(r: Rng, i: int) -> tuple[str, str]:
    tps = r.choice([2800, 3100, 3400, 3900])
    return "python", f'''def model_flops_utilisation(params: float, tokens_per_s_per_gpu: float,
                            peak_tflops: float = 989.0) -> float:
    """Share of the card's peak that the model's own arithmetic uses."""
    achieved = 6 * params * tokens_per_s_per_gpu
    return achieved / (peak_tflops * 1e12)


print(f"MFU = {{model_flops_utilisation(7e9, {tps}):.1%}}")
'''


def code_peak(r: Rng, i: int) -> tuple[str, str]:
    return "python", '''import torch

torch.cuda.reset_peak_memory_stats()
loss = model(batch).loss
loss.backward()
optimizer.step()
optimizer.zero_grad(set_to_none=True)

peak = torch.cuda.max_memory_allocated() / 2**30
held = torch.cuda.memory_reserved() / 2**30
print(f"peak {peak:.1f} GiB allocated, {held:.1f} GiB held by the allocator")
'''


def code_accumulate(r: Rng, i: int) -> tuple[str, str]:
    k = r.choice([4, 8, 16])
    return "python", f'''ACCUMULATION_STEPS = {k}

for step, micro_batches in enumerate(loader):
    for j, batch in enumerate(micro_batches):
        last = j == ACCUMULATION_STEPS - 1
        # reduce gradients across replicas only after the last micro-batch
        context = contextlib.nullcontext() if last else model.no_sync()
        with context:
            loss = model(batch).loss / ACCUMULATION_STEPS
            loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
'''


def code_online_softmax(r: Rng, i: int) -> tuple[str, str]:
    return "python", '''import numpy as np


def online_softmax(x: np.ndarray, block: int = 128) -> np.ndarray:
    """Softmax over one row, reading it block by block, as tiled attention does."""
    running_max, running_sum = -np.inf, 0.0
    for start in range(0, x.size, block):
        chunk = x[start:start + block]
        new_max = max(running_max, chunk.max())
        running_sum = running_sum * np.exp(running_max - new_max) + np.exp(chunk - new_max).sum()
        running_max = new_max
    return np.exp(x - running_max) / running_sum
'''


def code_loss_scale(r: Rng, i: int) -> tuple[str, str]:
    n = r.choice([1000, 2000])
    return "python", f'''scale, clean_steps = 2.0 ** 16, 0

for batch in loader:
    loss = model(batch).loss
    (loss * scale).backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if any(not torch.isfinite(g).all() for g in grads):
        scale, clean_steps = scale / 2, 0   # overflow: skip this step
        optimizer.zero_grad(set_to_none=True)
        continue
    for g in grads:
        g.div_(scale)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    clean_steps += 1
    if clean_steps == {n}:
        scale, clean_steps = scale * 2, 0
'''


def code_mesh(r: Rng, i: int) -> tuple[str, str]:
    t, p = r.choice([(8, 4), (4, 8), (8, 8), (2, 4)])
    return "python", f'''WORLD = 512
TP, PP = {t}, {p}
DP = WORLD // (TP * PP)


def coordinates(rank: int) -> tuple[int, int, int]:
    """(data, pipeline, tensor) position of a rank; tensor varies fastest,
    so each tensor-parallel group sits inside one node."""
    tensor = rank % TP
    pipeline = (rank // TP) % PP
    data = rank // (TP * PP)
    return data, pipeline, tensor


print(DP, coordinates(0), coordinates(TP), coordinates(WORLD - 1))
'''


def code_cost(r: Rng, i: int) -> tuple[str, str]:
    n, t = r.choice([(7, 2), (13, 2), (70, 2), (34, 3)])
    return "python", f'''params, tokens = {n}e9, {t}e12
gpus, peak, mfu = 1024, 989e12, 0.40

flops = 6 * params * tokens
seconds = flops / (gpus * peak * mfu)
print(f"{{flops:.2e}} FLOPs, {{seconds / 86400:.1f}} days on {{gpus}} cards")
'''


def bash_launch(r: Rng, i: int) -> tuple[str, str]:
    nodes = r.choice([2, 4, 16, 64])
    return "bash", f'''# one process per card, {nodes} nodes of 8 cards
torchrun \\
  --nnodes={nodes} --nproc-per-node=8 \\
  --rdzv-backend=c10d --rdzv-endpoint="$HEAD_NODE:29500" \\
  train.py --tp 8 --pp {max(1, nodes // 4)} --micro-batch 1 --global-batch 1024
'''


def bash_nccl(r: Rng, i: int) -> tuple[str, str]:
    return "bash", '''# what the collective library decided, and over which links
export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,GRAPH
nvidia-smi topo -m            # which cards share a switch, which cross a socket
python train.py --steps 20 2>&1 | grep -E "Channel|Ring|Tree" | head -n 40
'''


def bash_slurm(r: Rng, i: int) -> tuple[str, str]:
    nodes = r.choice([8, 32, 128])
    return "bash", f'''#!/bin/bash
#SBATCH --nodes={nodes}
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --exclusive

export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_PORT=29500
srun python train.py --config configs/run.yaml
'''


def bash_profile(r: Rng, i: int) -> tuple[str, str]:
    return "bash", '''# a short, instrumented run: 30 steps, a timeline of steps 20 to 25
nsys profile --trace=cuda,nvtx,osrt --capture-range=cudaProfilerApi \\
  --output step-timeline python train.py --steps 30 --profile-steps 20:25
nsys stats --report cuda_gpu_kern_sum step-timeline.nsys-rep | head -n 25
'''


def bash_checkpoint(r: Rng, i: int) -> tuple[str, str]:
    return "bash", '''# copy finished checkpoints to slower storage without blocking training
for dir in checkpoints/step-*; do
  [ -e "$dir/COMPLETE" ] || continue       # written last, after every shard
  rsync -a --remove-source-files "$dir" /archive/run-42/ && rmdir "$dir"
done
'''


def bash_alloc(r: Rng, i: int) -> tuple[str, str]:
    return "bash", '''# fewer fragmentation failures on recent PyTorch; it does not create memory
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
python train.py --micro-batch 2 --seq-len 8192 --recompute selective
'''


PYTHON_CODE = [code_param_count, code_state_memory, code_activations, code_allreduce, code_bubble, code_mfu,
               code_peak, code_accumulate, code_online_softmax, code_loss_scale, code_mesh, code_cost]
BASH_CODE = [bash_launch, bash_nccl, bash_slurm, bash_profile, bash_checkpoint, bash_alloc]


# --------------------------------------------------------------------------- tables

def fmt(x: float, digits: int = 1) -> str:
    return f"{x:,.{digits}f}"


def table_formats() -> tuple[list[str], list[list[str]], str]:
    rows = [["fp32", "8", "23", "4", "reference; too slow for the matrices"],
            ["tf32", "8", "10", "4 (stored)", "fp32 in memory, fewer mantissa bits in the multiply"],
            ["fp16", "5", "10", "2", "needs loss scaling"],
            ["bf16", "8", "7", "2", "fp32's range, little precision"],
            ["fp8 e4m3", "4", "3", "1", "forward pass, with per-tensor scales"],
            ["fp8 e5m2", "5", "2", "1", "gradients, with per-tensor scales"]]
    return ["format", "exponent bits", "mantissa bits", "bytes", "typical use"], rows, \
        "Number formats used in training. Range comes from the exponent, precision from the mantissa."


def table_sharding() -> tuple[list[str], list[list[str]], str]:
    rows = []
    for n in (7, 70):
        for d in (8, 64):
            psi = n * 1e9
            vals = [16 * psi, 4 * psi + 12 * psi / d, 2 * psi + 14 * psi / d, 16 * psi / d]
            rows.append([f"{n}B", str(d)] + [fmt(v / 1e9) for v in vals])
    return ["model", "replicas", "replicated (GB)", "stage 1 (GB)", "stage 2 (GB)", "stage 3 (GB)"], rows, \
        "Model state per card under each sharding stage, Adam in mixed precision, activations not included."


def table_bubble() -> tuple[list[str], list[list[str]], str]:
    ms = (4, 8, 16, 32, 64)
    rows = [[str(p)] + [f"{(p - 1) / (m + p - 1):.2f}" for m in ms] for p in (2, 4, 8, 16)]
    return ["stages"] + [f"m = {m}" for m in ms], rows, \
        "Idle share of each card in a pipeline of p stages with m micro-batches, non-interleaved."


def table_allreduce() -> tuple[list[str], list[list[str]], str]:
    rows = []
    for size in (0.1, 1, 14, 140):
        row = [fmt(size, 1)]
        for bw in (25, 100, 400):
            row.append(f"{2 * size / bw * 1000:,.0f}")
        rows.append(row)
    return ["gradients (GB)", "25 GB/s (ms)", "100 GB/s (ms)", "400 GB/s (ms)"], rows, \
        "Bandwidth term of a large ring all-reduce, about twice the message size divided by the link bandwidth."


def table_activations() -> tuple[list[str], list[list[str]], str]:
    h, a, L = 4096, 32, 32
    rows = []
    for s in (1024, 2048, 4096, 8192, 16384):
        plain = s * h * (34 + 5 * a * s / h) * L / 1e9
        tiled = s * h * 34 * L / 1e9
        rows.append([f"{s:,}", fmt(plain), fmt(tiled)])
    return ["sequence length", "stored, plain attention (GB)", "stored, tiled attention (GB)"], rows, \
        "Activations of one sequence through 32 layers of width 4096 with 32 heads, half precision."


def table_params() -> tuple[list[str], list[list[str]], str]:
    rows = []
    for L, h in ((24, 2048), (32, 4096), (40, 5120), (60, 6656), (80, 8192)):
        n = 12 * L * h * h + 2 * 32000 * h
        rows.append([str(L), f"{h:,}", fmt(n / 1e9, 2), fmt(16 * n / 1e9, 0)])
    return ["layers", "hidden size", "parameters (B)", "model state (GB)"], rows, \
        "Parameter counts from the 12 L h squared rule with a vocabulary of 32 000, and the 16 bytes each costs."


def table_days() -> tuple[list[str], list[list[str]], str]:
    rows = []
    for n, t in ((7, 1), (7, 2), (13, 2), (70, 2), (70, 15)):
        flops = 6 * n * 1e9 * t * 1e12
        days = flops / (1024 * 989e12 * 0.4) / 86400
        rows.append([f"{n}B", f"{t}T", f"{flops:.1e}", fmt(days)])
    return ["model", "tokens", "training FLOPs", "days on 1024 cards at 40% MFU"], rows, \
        "Training cost from the six-FLOPs-per-parameter-per-token rule."


def table_layouts() -> tuple[list[str], list[list[str]], str]:
    rows = []
    for t, p in ((8, 1), (8, 2), (8, 4), (4, 8), (2, 16)):
        d = 512 // (t * p)
        psi = 70e9 / (t * p)
        state = 4 * psi + 12 * psi / d
        rows.append([str(t), str(p), str(d), fmt(state / 1e9)])
    return ["tensor", "pipeline", "data", "state per card, stage 1 (GB)"], rows, \
        "Ways to lay out a 70B model on 512 cards, and the model state each leaves on a card."


TABLES = [table_formats, table_sharding, table_bubble, table_allreduce, table_activations, table_params,
          table_days, table_layouts]


# --------------------------------------------------------------------------- generated pictures

def svg_pipeline() -> str:
    p, m, w, hgt = 4, 6, 36, 26
    parts = []
    for stage in range(p):
        y = 10 + stage * (hgt + 8)
        parts.append(f'<text x="4" y="{y + 18}" class="lbl">card {stage + 1}</text>')
        for mb in range(m):
            x = 70 + (stage + mb) * w
            parts.append(f'<rect x="{x}" y="{y}" width="{w - 3}" height="{hgt}" class="fwd"/>'
                         f'<text x="{x + 12}" y="{y + 18}" class="num">{mb + 1}</text>')
        for mb in range(m):
            x = 70 + (m + p - 1) * w + (p - 1 - stage + mb) * w * 2 + 6
            parts.append(f'<rect x="{x}" y="{y}" width="{2 * w - 3}" height="{hgt}" class="bwd"/>'
                         f'<text x="{x + 30}" y="{y + 18}" class="num">{mb + 1}</text>')
    width = 70 + (m + p - 1) * w + (p - 1 + m) * w * 2 + 16
    return (f'<svg viewBox="0 0 {width} {10 + p * (hgt + 8)}" role="img" '
            f'aria-label="Forward passes of six micro-batches through four cards, then the backward passes.">'
            + "".join(parts) + "</svg>")


def svg_ring() -> str:
    import math
    n, cx, cy, rad = 8, 200, 150, 110
    parts = [f'<circle cx="{cx}" cy="{cy}" r="{rad}" class="ring"/>']
    for k in range(n):
        a = 2 * math.pi * k / n - math.pi / 2
        x, y = cx + rad * math.cos(a), cy + rad * math.sin(a)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="22" class="node"/>'
                     f'<text x="{x:.1f}" y="{y + 5:.1f}" text-anchor="middle" class="num">{k}</text>')
        b = 2 * math.pi * (k + 0.5) / n - math.pi / 2
        ax, ay = cx + (rad + 30) * math.cos(b), cy + (rad + 30) * math.sin(b)
        parts.append(f'<text x="{ax:.1f}" y="{ay + 4:.1f}" text-anchor="middle" class="lbl">M/8</text>')
    return ('<svg viewBox="0 0 400 300" role="img" aria-label="Eight cards in a ring, each passing one eighth '
            'of the gradients to its neighbour.">' + "".join(parts) + "</svg>")


def svg_split() -> str:
    parts = ['<text x="10" y="20" class="lbl">X</text><rect x="10" y="30" width="60" height="160" class="fwd"/>']
    for i in range(4):
        x = 110 + i * 70
        parts.append(f'<rect x="{x}" y="30" width="60" height="160" class="col{i % 2}"/>'
                     f'<text x="{x + 18}" y="20" class="lbl">A{i + 1}</text>')
    for i in range(4):
        y = 30 + i * 40
        parts.append(f'<rect x="420" y="{y}" width="160" height="37" class="col{i % 2}"/>'
                     f'<text x="590" y="{y + 24}" class="lbl">B{i + 1}</text>')
    return ('<svg viewBox="0 0 640 200" role="img" aria-label="A weight matrix split into four column blocks, '
            'the next one into four row blocks.">' + "".join(parts) + "</svg>")


def svg_stack() -> str:
    items = [("weights", 2), ("gradients", 2), ("master", 4), ("Adam m", 4), ("Adam v", 4)]
    parts, y = [], 10
    for name, b in items:
        hgt = b * 22
        parts.append(f'<rect x="60" y="{y}" width="180" height="{hgt - 2}" class="col{len(parts) % 2}"/>'
                     f'<text x="250" y="{y + hgt / 2 + 4:.0f}" class="lbl">{name}: {b} bytes</text>')
        y += hgt
    return ('<svg viewBox="0 0 420 370" role="img" aria-label="Sixteen bytes per parameter stacked by entry.">'
            + "".join(parts) + "</svg>")


D_FIGURES = [
    (svg_pipeline, "Forward passes (blue) stream through four cards before the backward passes (orange) come back; the white corners are the bubble."),
    (svg_ring, "A ring all-reduce over eight cards: every step, each card passes one eighth of the tensor to its neighbour."),
    (svg_split, "Tensor parallelism: the first matrix is split by columns, the second by rows, so one reduction at the end joins the partial results."),
    (svg_stack, "The sixteen bytes of one parameter under Adam in mixed precision, entry by entry."),
]


def png_heatmap(path: Path) -> None:
    cw, ch = 96, 48
    ps, ms = (2, 4, 8, 16), (4, 8, 16, 32, 64)
    img = Image.new("RGB", (cw * len(ms) + 2, ch * len(ps) + 2), (255, 255, 255))
    d = ImageDraw.Draw(img)
    for i, p in enumerate(ps):
        for j, m in enumerate(ms):
            r = (p - 1) / (m + p - 1)
            c = (int(240 - 200 * r), int(246 - 160 * r), 250)
            d.rectangle((1 + j * cw, 1 + i * ch, j * cw + cw - 1, i * ch + ch - 1), fill=c)
    img.save(path, format="PNG", optimize=False, compress_level=9)


def png_breakdown(path: Path) -> None:
    w, h = 640, 240
    img = Image.new("RGB", (w, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    colours = [(31, 95, 191), (111, 66, 193), (29, 107, 53), (194, 65, 12), (214, 219, 226)]
    configs = [(2, 2, 12, 6, 4), (2, 2, 3, 6, 4), (2, 1, 1, 6, 4), (1, 1, 1, 6, 4), (1, 1, 1, 2, 4)]
    for k, parts in enumerate(configs):
        x0, y = 40 + k * 120, h - 20
        for part, colour in zip(parts, colours):
            top = y - part * 7
            d.rectangle((x0, top, x0 + 72, y - 1), fill=colour)
            y = top
    d.line((20, h - 20, w - 20, h - 20), fill=(87, 96, 106), width=2)
    img.save(path, format="PNG", optimize=False, compress_level=9)


# --------------------------------------------------------------------------- fragments

FRAGMENTS = [
    ("memory-by-stage.html", "bar",
     {"title": "Model state per card by sharding stage", "labels": "replicated|stage 1|stage 2|stage 3",
      "values": "112,38.5,26.2,14", "unit": "GB per card", "max": "120", "limit": "80"},
     "Model state per card for a 7B-parameter model on 8 replicas. The dashed line is an 80 GB card."),
    ("bubble-curves.html", "line",
     {"title": "Idle share against micro-batches", "x": "4,8,16,32,64",
      "series": ";".join(f"p={p}:" + ",".join(f"{(p - 1) / (m + p - 1):.3f}" for m in (4, 8, 16, 32, 64))
                         for p in (2, 4, 8, 16)),
      "max": "0.8"},
     "Idle share of a pipeline as micro-batches grow, for 2 to 16 stages. Hover a curve to read it."),
    ("allreduce-grid.html", "grid",
     {"title": "All-reduce time by size and bandwidth", "rows": "0.1 GB|1 GB|14 GB|140 GB",
      "cols": "25 GB/s|100 GB/s|400 GB/s",
      "cells": ",".join(f"{2 * s / b * 1000:.0f}" for s in (0.1, 1, 14, 140) for b in (25, 100, 400)),
      "unit": "ms"},
     "Bandwidth term of a ring all-reduce, in milliseconds. Darker cells take longer (shaded on a log scale)."),
]


def fragment_html(kind: str, data: dict, caption: str, number: int) -> str:
    attrs = " ".join(f'data-{k}="{html.escape(v)}"' for k, v in data.items())
    return (f'<figure class="lchart" data-kind="{kind}" {attrs}>\n'
            f'  <div class="lchart-area"></div>\n'
            f'  <p class="lchart-readout">Point at the chart to read its values.</p>\n'
            f'  <figcaption><strong>Figure {number}.</strong> {html.escape(caption)} '
            f'This chart was fetched after the page loaded.</figcaption>\n'
            f'</figure>\n')


# --------------------------------------------------------------------------- writing

class Writer:
    def __init__(self, seed: int = SEED) -> None:
        self.r = Rng(seed)
        self.body = Deck(self.r, BODY)
        self.body_math = Deck(self.r, BODY_MATH)
        self.openers = Deck(self.r, OPENERS)
        self.closers = Deck(self.r, CLOSERS)
        self.inline = Deck(self.r, INLINE_MATH)
        self.values = Deck(self.r, VALUES)
        self.sizes = Deck(self.r, SIZES)
        self.states = Deck(self.r, STATES)
        self.knobs = Deck(self.r, KNOBS)
        self.resources = Deck(self.r, RESOURCES)
        self.hardware = Deck(self.r, HARDWARE)
        self.cards = Deck(self.r, CARDS)
        self.scalings = Deck(self.r, SCALINGS)
        self.footnotes = list(FOOTNOTES)
        self.bib = self._bibliography()
        self.cite_deck = Deck(self.r, [k for k, _ in self.bib])
        self.figure_no = 0

    # -- bibliography
    def _bibliography(self) -> list[tuple[str, str]]:
        entries = []
        used = set()
        for i in range(30):
            slug, topic = CITE_TOPICS[i % len(CITE_TOPICS)]
            sur = CITE_SURNAMES[i]
            year = 2017 + self.r.below(8)
            key = f"{sur.lower()}{year}{slug}"
            while key in used:
                key += "b"
            used.add(key)
            n_auth = 1 + self.r.below(4)
            authors = [f"{sur}, {self.r.choice(CITE_GIVEN)}"]
            for _ in range(n_auth - 1):
                authors.append(f"{self.r.choice(CITE_SURNAMES)}, {self.r.choice(CITE_GIVEN)}")
            title = f"{self.r.choice(CITE_OPENERS)} {topic} {self.r.choice(CITE_GOALS)}"
            venue = self.r.choice(CITE_VENUES)
            kind = "inproceedings" if "Proceedings" in venue or "Conference" in venue or "Symposium" in venue else "article"
            where = "booktitle" if kind == "inproceedings" else "journal"
            entries.append((key, (f"@{kind}{{{key},\n  title={{{title}}},\n  author={{{' and '.join(authors)}}},\n"
                                  f"  {where}={{{venue}}},\n  year={{{year}}}\n}}\n")))
        return entries

    def bibtex(self) -> str:
        head = ("% Generated by article/long/make_long.py. Every entry is fictional: names, titles\n"
                "% and venues are drawn from word lists, for testing citations, not for reading.\n\n")
        return head + "\n".join(text for _, text in self.bib)

    # -- prose
    def fill(self, template: str, topic: str) -> str:
        r = self
        s1 = self.states.draw()
        s2 = self.states.draw()
        while s2 == s1:
            s2 = self.states.draw()
        r1 = self.resources.draw()
        r2 = self.resources.draw()
        while r2 == r1:
            r2 = self.resources.draw()
        knob = self.knobs.draw()
        out = template
        # the same knob may appear twice in one sentence: replace all occurrences at once
        out = out.replace("{K}", knob).replace("{S2}", s2).replace("{S}", s1)
        out = out.replace("{R2}", r2).replace("{R}", r1).replace("{H}", self.hardware.draw())
        out = out.replace("{C}", self.cards.draw())
        out = out.replace("{V}", self.scalings.draw()).replace("{Tc}", topic[:1].upper() + topic[1:])
        out = out.replace("{T}", topic).replace("{P}", str(3 + self.r.below(20)))
        if "{MS}" in out:
            out = out.replace("{MS}", f"<d-math>{html.escape(r.sizes.draw())}</d-math>")
        if "{MV}" in out:
            out = out.replace("{MV}", f"<d-math>{html.escape(r.values.draw())}</d-math>")
        if "{M}" in out:
            out = out.replace("{M}", f"<d-math>{html.escape(r.inline.draw())}</d-math>")
        return out

    def cite(self) -> str:
        keys = [self.cite_deck.draw() for _ in range(1 + self.r.below(2))]
        keys = list(dict.fromkeys(keys))
        return f'<d-cite key="{",".join(keys)}"></d-cite>'

    def decorate(self, sentence: str) -> str:
        """Maybe hang a citation or a footnote on the end of a sentence."""
        tail = ""
        if self.r.chance(CITE_SHARE):
            tail = self.cite()
        elif self.footnotes and self.r.chance(FOOTNOTE_SHARE):
            tail = f"<d-footnote>{self.footnotes.pop(0)}</d-footnote>"
        if tail and sentence.endswith("."):
            return sentence[:-1] + tail + "."
        return sentence

    def paragraph(self, topic: str, opener: bool = False, closer: bool = False) -> str:
        sentences = []
        if opener:
            sentences.append(self.fill(self.openers.draw(), topic))
        for _ in range(3 + self.r.below(3)):
            sentences.append(self.sentence(topic))
        if closer:
            sentences.append(self.fill(self.closers.draw(), topic))
        return "<p>" + " ".join(self.decorate(s) for s in sentences) + "</p>"

    def sentence(self, topic: str) -> str:
        deck = self.body_math if self.r.chance(MATH_SHARE) else self.body
        return self.fill(deck.draw(), topic)


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def note_box(title: str, text: str, extra: str = "") -> str:
    return (f'<div class="note-box">\n  <p class="note-box-title">{title}</p>\n'
            f'  <div class="note-box-content">\n    <p>{text}</p>{extra}\n  </div>\n</div>')


def table_html(head: list[str], rows: list[list[str]], caption: str, number: int) -> str:
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "\n".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return (f'<figure class="table-figure">\n<table>\n<thead><tr>{th}</tr></thead>\n<tbody>\n{body}\n</tbody>\n'
            f'</table>\n<figcaption><strong>Table {number}.</strong> {esc(caption)}</figcaption>\n</figure>')


INLINE_STYLE = """
  /* Page-specific rules; everything else comes from the theme's style.css. */

  /* The runtime gives d-article overflow-x: hidden, which makes it a scroll container: a
     sticky child would stick to d-article (which never scrolls) and the theme's asides,
     floated into the right margin, would be clipped. */
  d-article { overflow: visible; }

  d-contents a { border-bottom: none; }
  d-contents a.active { color: var(--theme-link-color); font-weight: 700; }
  d-contents nav > ul { margin-bottom: 6px; }

  @media (min-width: 1240px) {
    /* A sticky column in the free space left of the text (the theme puts d-article at
       50% - 466px): floated out of the flow, at most as tall as the window. */
    d-contents {
      float: left;
      position: sticky;
      top: 24px;
      box-sizing: border-box;
      width: calc(50vw - 466px - 32px);
      max-height: calc(100vh - 48px);
      margin: 0 0 0 calc(466px - 50vw + 12px);
      padding: 0 8px 0 0;
      overflow-y: auto;
      border: 0;
      border-radius: 0;
      background: none;
      font-size: 12.5px;
      line-height: 1.4;
    }
    d-contents nav > div { margin-top: 10px; }
  }

  .gif-row { display: flex; flex-wrap: wrap; gap: 24px; justify-content: center; }
  .gif-row figure { margin: 0; text-align: center; }
  .gif-row img { width: 120px; height: 120px; }

  d-figure { display: block; margin: 32px 0; }
  d-figure svg { display: block; width: 100%; height: auto; font-family: var(--theme-font-family-heading); }
  d-figure svg .fwd { fill: #9db8e3; }
  d-figure svg .bwd { fill: #f0b48f; }
  d-figure svg .col0 { fill: #9db8e3; }
  d-figure svg .col1 { fill: #c6b4ec; }
  d-figure svg .ring { fill: none; stroke: #c3cad2; stroke-width: 3; }
  d-figure svg .node { fill: #1f5fbf; }
  d-figure svg .num { font-size: 13px; fill: #0d1013; }
  d-figure svg .node + .num { fill: #ffffff; }
  d-figure svg .lbl { font-size: 13px; fill: #57606a; }
  d-figure .fig-state { margin: 4px 0 0; color: var(--theme-caption-color); font-family: var(--theme-font-family-heading); font-size: 12px; }
  d-figure.is-onscreen .fig-state { color: var(--theme-link-color); }

  .fragment-slot { min-height: 120px; margin: 32px 0; }
  .fragment-slot:not(.filled) {
    display: flex; align-items: center; justify-content: center;
    border: 2px dashed var(--theme-border-color); border-radius: 6px;
    color: var(--theme-text-color-muted); font-family: var(--theme-font-family-heading); font-size: 14px;
  }
  .lchart { margin: 0; }
  .lchart svg { display: block; width: 100%; height: auto; font-family: var(--theme-font-family-heading); }
  .lchart .axis { stroke: #57606a; stroke-width: 1.5; }
  .lchart .limit { stroke: #b3261e; stroke-dasharray: 6 4; }
  .lchart .tick { font-size: 12px; fill: #57606a; }
  .lchart .mark { fill: #9db8e3; }
  .lchart .mark.hot, .lchart .mark-cell.hot { fill: #c2410c; }
  .lchart .mark-line { fill: none; stroke: #9db8e3; stroke-width: 2.5; }
  .lchart .mark-dot { fill: #9db8e3; }
  .lchart .series.hot .mark-line { stroke: #c2410c; stroke-width: 4; }
  .lchart .series.hot .mark-dot { fill: #c2410c; }
  .lchart .mark-cell { stroke: #ffffff; }
  .lchart-readout { margin: 8px 0 0; font-family: var(--theme-font-family-heading); font-size: 14px; font-weight: 600; }

  .embed iframe, .embed audio { display: block; max-width: 100%; margin: 0 auto; }
  .embed iframe { border: 1px solid var(--theme-border-color); background: var(--theme-code-background); }
  .embed audio { width: 100%; }
"""


def build_page(w: Writer) -> tuple[str, dict]:
    """The article's HTML and a few counts for the README and tests."""
    r = w.r
    counts = dict(sections=len(SECTIONS), h3=0, math_block=0, code=0, notes=0, tables=0, asides=0,
                  d_figures=0, fragments=0, gifs=0, images=0)

    # Components, spread over the sub-sections in a seeded order. Each slot takes at most one.
    comps: list[tuple[str, object]] = []
    comps += [("math", m) for m in BLOCK_MATH]
    code_makers = [PYTHON_CODE[i % len(PYTHON_CODE)] for i in range(22)] + [BASH_CODE[i % len(BASH_CODE)] for i in range(11)]
    comps += [("code", c) for c in code_makers]
    comps += [("note", i) for i in range(len(NOTE_TEXTS))]
    comps += [("table", t) for t in TABLES]
    comps += [("dfig", f) for f in D_FIGURES]
    comps += [("img", x) for x in (
        ("assets/images/zero-memory.svg", 680, 380, "Stacked bars of memory per card for a 7B model under each sharding stage.",
         "Memory per card for a 7B-parameter model: replicated, then with each sharding stage."),
        ("assets/images/pipeline-schedules.svg", 680, 360, "Two pipeline timing diagrams for four cards and four micro-batches.",
         "Two pipeline schedules, all-forward-then-all-backward and one-forward-one-backward, side by side."),
        ("assets/images/bubble-fraction.svg", 680, 360, "Idle share against micro-batches for pipelines of 2 to 16 stages.",
         "Idle share of a pipeline for 2 to 16 stages as micro-batches grow."),
        ("assets/figures/bubble-heatmap.png", 482, 194, "A grid of shaded cells; darker cells mean a larger idle share.",
         "The bubble table as a picture: stages down, micro-batches across, darker means more idle time."),
        ("assets/figures/memory-breakdown.png", 640, 240, "Five stacked bars shrinking from left to right.",
         "Per-card memory as each technique is switched on in turn, from left to right."),
    )]
    comps += [("frag", f) for f in FRAGMENTS]
    comps += [("gifs", None)]
    comps += [("iframe", None), ("audio", None)]
    comps = r.shuffled(comps)
    # the first sub-section of the first section stays plain prose; fragments must not
    # land in the first screen, so slots start after it.

    asides = Deck(r, ASIDES)
    notes_titles = Deck(r, NOTE_TITLES)
    out = []
    toc = ['<d-contents>', '  <nav>', '    <h3>Contents</h3>']
    slot_index = 0
    slots_total = sum(1 + len(s[3]) for s in SECTIONS) - 1

    # spread len(comps) components over slots_total slots evenly
    placement: dict[int, list] = {}
    for i, comp in enumerate(comps):
        slot = 1 + (i * slots_total) // len(comps)
        placement.setdefault(slot, []).append(comp)

    def render(kind: str, payload, topic: str) -> str:
        if kind == "math":
            counts["math_block"] += 1
            lead = f"<p>{w.sentence(topic)} In symbols:</p>"
            return f"{lead}\n<d-math block>{esc(payload)}</d-math>"
        if kind == "code":
            counts["code"] += 1
            lang, code = payload(r, counts["code"])
            return f'<d-code block language="{lang}">\n{esc(code.rstrip())}\n</d-code>'
        if kind == "note":
            counts["notes"] += 1
            extra = ""
            if counts["notes"] % 3 == 0:
                items = "".join(f"<li>{w.sentence(topic)}</li>" for _ in range(3))
                extra = f"\n    <ul>{items}</ul>"
            return note_box(notes_titles.draw(), NOTE_TEXTS[payload], extra)
        if kind == "table":
            counts["tables"] += 1
            head, rows, cap = payload()
            return table_html(head, rows, cap, counts["tables"])
        if kind == "dfig":
            counts["d_figures"] += 1
            w.figure_no += 1
            maker, cap = payload
            return (f'<d-figure id="figure-live-{counts["d_figures"]}">\n<figure>\n{maker()}\n'
                    f'<figcaption><strong>Figure {w.figure_no}.</strong> {esc(cap)}</figcaption>\n</figure>\n'
                    f'<p class="fig-state">not yet on screen</p>\n</d-figure>')
        if kind == "img":
            counts["images"] += 1
            w.figure_no += 1
            src, width, height, alt, cap = payload
            return (f'<figure>\n  <img src="{src}" alt="{esc(alt)}" width="{width}" height="{height}">\n'
                    f'  <figcaption><strong>Figure {w.figure_no}.</strong> {esc(cap)}</figcaption>\n</figure>')
        if kind == "frag":
            counts["fragments"] += 1
            w.figure_no += 1
            name = payload[0]
            w.fragment_numbers[name] = w.figure_no
            return (f'<div class="fragment-slot" data-src="assets/fragments/{name}">'
                    f'Loading an interactive chart...</div>')
        if kind == "gifs":
            counts["gifs"] += 3
            w.figure_no += 1
            cells = "".join(
                f'\n  <figure><img src="assets/gif/{name}.gif" width="120" height="120" alt="{esc(alt)}">'
                f'<figcaption>{esc(cap)}</figcaption></figure>'
                for name, alt, cap in (
                    ("ring-step", "A bar turning round a dial in eight steps.", "a ring step"),
                    ("pipeline-dot", "A dot travelling round a square.", "a micro-batch"),
                    ("bucket-bars", "Eight columns, the tall one moving right.", "bucket by bucket")))
            return (f'<figure class="gif-figure">\n<div class="gif-row">{cells}\n</div>\n'
                    f'<figcaption><strong>Figure {w.figure_no}.</strong> Three looping animations '
                    f'of the kind long articles use as progress indicators. They never stop.</figcaption>\n</figure>')
        if kind == "iframe":
            return ('<figure class="embed">\n  <iframe src="https://www.youtube-nocookie.com/embed/ring-allreduce-walkthrough" '
                    'width="560" height="315" title="A video walkthrough of a ring all-reduce, hosted elsewhere" '
                    'allowfullscreen></iframe>\n  <figcaption>An embedded video from another site. '
                    'Offline it stays empty.</figcaption>\n</figure>')
        if kind == "audio":
            return ('<figure class="embed">\n  <audio controls preload="metadata" src="assets/audio/interview.mp3"></audio>\n'
                    '  <figcaption>An audio interview about the worked configuration. The file is not shipped, '
                    'so the player never gets to play it.</figcaption>\n</figure>')
        raise ValueError(kind)

    w.fragment_numbers = {}
    for si, (sid, title, topic, subs) in enumerate(SECTIONS):
        out.append(f'<section id="{sid}">\n<h2>{esc(title)}</h2>')
        toc.append(f'    <div><a href="#{sid}">{esc(title)}</a></div>')
        if subs:
            toc.append('    <ul>')
        for p in range(INTRO_PARAGRAPHS + (si % 3 == 0)):
            out.append(w.paragraph(topic, opener=(p == 0)))
            if p == 0 and r.chance(0.3):
                out.append(f"<aside>{esc(asides.draw())}</aside>")
                counts["asides"] += 1
        for comp in placement.get(slot_index, []):
            out.append(render(*comp, topic))
        slot_index += 1
        for hi, sub in enumerate(subs):
            hid = f"{sid}-{hi + 1}"
            counts["h3"] += 1
            out.append(f'<h3 id="{hid}">{esc(sub)}</h3>')
            toc.append(f'      <li><a href="#{hid}">{esc(sub)}</a></li>')
            for p in range(SUB_PARAGRAPHS):
                out.append(w.paragraph(topic, closer=(p == SUB_PARAGRAPHS - 1 and hi == len(subs) - 1)))
                if p == 1 and r.chance(0.12):
                    out.append(f"<aside>{esc(asides.draw())}</aside>")
                    counts["asides"] += 1
                if p == 2:
                    for comp in placement.get(slot_index, []):
                        out.append(render(*comp, topic))
            slot_index += 1
        if subs:
            toc.append('    </ul>')
        out.append("</section>\n")
    toc += ['  </nav>', '</d-contents>']
    return "\n".join(toc) + "\n\n" + "\n".join(out), counts


FRONT_MATTER = {
    "title": "The Ledger at Scale",
    "description": "A long field guide to memory, compute and communication when training large language models on GPU clusters. Generated text for testing.",
    "published": "June 4, 2024",
    "authors": [
        {"author": "Amara Okafor", "authorURL": "#", "affiliations": [{"name": "Imaginary Training Cluster"}]},
        {"author": "Jonas Lindqvist", "authorURL": "#", "affiliations": [{"name": "Imaginary Training Cluster"}]},
        {"author": "Hiro Tanaka", "authorURL": "#", "affiliations": [{"name": "Fictional Systems Lab"}]},
    ],
}


def document(w: Writer) -> tuple[str, dict]:
    article, counts = build_page(w)
    appendix_math = [r"\Psi", r"N", r"L", r"h", r"a", r"V", r"s", r"b", r"k", r"T", r"d", r"t", r"p", r"m", r"v", r"E"]
    notation = ", ".join(f"<d-math>{m}</d-math>" for m in appendix_math)
    page = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The Ledger at Scale: memory, compute and communication for training large language models</title>
<link rel="icon" href="data:,">
<script src="assets/distill/template.v2.js"></script>
<link rel="stylesheet" href="assets/fonts/fonts.css">
<link rel="stylesheet" href="style.css">
<style>{INLINE_STYLE}</style>
</head>
<body>

<d-front-matter>
  <script type="text/json">{json.dumps(FRONT_MATTER, indent=2)}</script>
</d-front-matter>

<d-title>
  <h1>The Ledger at Scale</h1>
  <p class="subtitle">Memory, compute and communication when training large language models on GPU clusters: a long, generated field guide for testing a stylesheet against the real Distill runtime.</p>
</d-title>

<d-byline></d-byline>

<d-article>
{article}
</d-article>

<d-appendix>
  <h3>About this article</h3>
  <p>This page is generated by <code>article/long/make_long.py</code> from word lists and sentence patterns, with a fixed seed. It reads like a field guide at a glance and is built to have the length and the moving parts of a real one: the Distill runtime, typeset maths, highlighted code, citations, footnotes, figures that notice being seen, fragments fetched after load and animations that never stop.</p>
  <h3>Notation</h3>
  <p>Symbols used throughout: {notation}.</p>
  <h3>Reuse</h3>
  <p>The text and figures are test material for the theme project. The references are fictional.</p>
  <d-bibliography src="bibliography.bib"></d-bibliography>
</d-appendix>

<script src="assets/long.js"></script>
</body>
</html>
"""
    return page, counts


# --------------------------------------------------------------------------- site

def _load_gif_module() -> types.ModuleType:
    """tests/visual/pages/assets/gif/make_gif.py, loaded without writing bytecode beside it."""
    mod = types.ModuleType("make_gif")
    mod.__file__ = str(GIF_SCRIPT)
    exec(compile(GIF_SCRIPT.read_text(encoding="utf-8"), str(GIF_SCRIPT), "exec"), mod.__dict__)
    return mod


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)


def build(dest: Path) -> Path:
    """Write the whole site into ``dest`` (created if needed) and return the path of its index.html."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    assets = dest / "assets"

    for name in COPIED_ASSETS:
        shutil.copytree(DIST / "assets" / name, assets / name, dirs_exist_ok=True)
    shutil.copyfile(DIST / "style.css", dest / "style.css")
    shutil.copyfile(LONG_JS, assets / "long.js")

    gif = _load_gif_module()
    for name, kind, colour in (("ring-step", "bar", 2), ("pipeline-dot", "dot", 3), ("bucket-bars", "bars", 4)):
        gif.generate(assets / "gif" / f"{name}.gif", kind=kind, color=colour)
    (assets / "figures").mkdir(parents=True, exist_ok=True)
    png_heatmap(assets / "figures" / "bubble-heatmap.png")
    png_breakdown(assets / "figures" / "memory-breakdown.png")

    w = Writer()
    page, counts = document(w)
    for name, kind, data, caption in FRAGMENTS:
        _write(assets / "fragments" / name, fragment_html(kind, data, caption, w.fragment_numbers[name]))
    _write(dest / "bibliography.bib", w.bibtex())
    _write(dest / "index.html", page)
    return dest / "index.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="output folder (created if needed; files in it are overwritten)")
    args = parser.parse_args(argv)
    print(build(args.dest))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
