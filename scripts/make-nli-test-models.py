#!/usr/bin/python3
"""Builds small random-weight NLI cross-encoders for testing the onnx backend.

Each model is a directory laid out as on the Hugging Face hub (model.onnx,
config.json, tokenizer.json) holding a real RoBERTa (or BERT) architecture:
embeddings, post-LayerNorm transformer layers with GELU, and the sequence
classification head, exported as an ONNX graph that takes input_ids and
attention_mask (and token_type_ids for BERT) as transformers' exports do.
The tokenizer is trained here on a small built-in corpus (byte-level BPE for
RoBERTa, WordPiece for BERT). Beside the 3-way NLI models (tiny-roberta,
tiny-bert) are two grounding classifiers of the same architectures:
tiny-minicheck, a RoBERTa with two labels LABEL_0 and LABEL_1 (LABEL_1 is
supported, as in MiniCheck's exports), and tiny-score, a BERT with one
logit whose sigmoid is P(supported).

Beside each test model the script writes reference.json: for a set of
premise/hypothesis pairs, the token ids, the premise chunks (the chunking and
aggregation rules of nli/onnxnli, implemented here a second time), and the
logits of every chunk (premise chunk by hypothesis chunk) from a forward pass written in numpy, in float64,
independently of ONNX Runtime. The Go tests compare the backend's answers
with them.

Usage (Debian: apt-get install python3-numpy python3-onnx python3-regex):

    scripts/make-nli-test-models.py                     # testdata/nli/tiny-{roberta,bert,minicheck,score}, bad/
    scripts/make-nli-test-models.py --roberta-ids       # testdata/nli/roberta-base-ids.json
    scripts/make-nli-test-models.py --bench DIR         # distilroberta-size model, for benchmarks

--roberta-ids encodes texts with the real roberta-base tokenizer.json of
testdata/refdata/tokenizers by this script's own BPE
and writes the ids, for checking the Go tokenizer. --bench writes a random
model of distilroberta's size (6 layers, hidden 768) with roberta-base's
vocabulary into DIR (outside the repository: about 330 MB).

The output is deterministic: the same script gives the same files.
"""

import argparse
import json
import math
import os
import sys

import numpy as np
import onnx
import regex
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ROBERTA_BASE = os.path.join(ROOT, "testdata", "refdata", "tokenizers", "roberta-base", "tokenizer.json")

# ---------------------------------------------------------------------------
# Text used to train the tiny tokenizers and the pairs of the reference.

CORPUS = """
Lanny Flaherty is an American actor born on July 27, 1942, in Pensacola, Florida.
He has appeared in numerous films, television shows, and theater productions throughout his career.
Marie Curie was a Polish-born physicist and chemist who conducted pioneering research on radioactivity.
She was the first woman to win a Nobel Prize, and she won Nobel Prizes in both physics and chemistry.
She was born in Warsaw in 1867 and died in 1936. Curie discovered the elements polonium and radium.
The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.
It was designed by the engineer Gustave Eiffel and completed in 1889 for the World's Fair.
Albert Einstein was a German-born theoretical physicist who developed the theory of relativity.
He received the Nobel Prize in Physics in 1921 for his explanation of the photoelectric effect.
The river flows north through the valley and reaches the sea after four hundred kilometres.
Mount Everest is the highest mountain above sea level; it is in the Himalayas.
Ada Lovelace wrote the first algorithm intended to be carried out by a machine.
He did not win the award, and he never lived in New York. She isn't a singer; they weren't married.
Né à Paris — the café's menu lists crêpes, naïve art and über-modern design.
"""

PAIRS = [
    ("Lanny Flaherty is an American actor born on July 27, 1942, in Pensacola, Florida.",
     "Lanny Flaherty was born in Florida."),
    ("Marie Curie won Nobel Prizes in both physics and chemistry.",
     "Marie Curie never won a Nobel Prize."),
    ("The Eiffel Tower was completed in 1889.",
     "Ada Lovelace wrote the first algorithm."),
    ("Né à Paris — the café's menu lists crêpes.",
     "The café is in Paris."),
    # Premises longer than the 64-token window: split into chunks on
    # sentence boundaries.
    ("The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. "
     "It was designed by the engineer Gustave Eiffel and completed in 1889 for the World's Fair. "
     "Albert Einstein was a German-born theoretical physicist who developed the theory of relativity. "
     "He received the Nobel Prize in Physics in 1921 for his explanation of the photoelectric effect. "
     "Mount Everest is the highest mountain above sea level; it is in the Himalayas.",
     "Albert Einstein received the Nobel Prize in Physics in 1921."),
    ("Ada Lovelace wrote the first algorithm intended to be carried out by a machine.  \"She was "
     "the first programmer.\" Lanny Flaherty has appeared in numerous films, television shows, and "
     "theater productions throughout his career.\n\nHe was born on July 27, 1942 (in Pensacola.) The "
     "river flows north through the valley and reaches the sea after four hundred kilometres!  Did it? "
     "Yes.",
     "Lanny Flaherty is an actor."),
    # One long sentence without a boundary: cut between words.
    ("the river flows north through the valley and the river flows north through the valley and "
     "the river flows north through the valley and the river flows north through the valley and "
     "the river flows north through the valley and reaches the sea after four hundred kilometres",
     "The river reaches the sea."),
    # A hypothesis longer than half the window is cut into chunks too.
    ("He received the Nobel Prize in Physics in 1921.",
     "Albert Einstein was a German-born theoretical physicist who developed the theory of relativity "
     "and received the Nobel Prize in Physics in 1921 for his explanation of the photoelectric effect, "
     "and the Eiffel Tower was completed in 1889."),
    ("", "An empty premise says nothing."),
]

# ---------------------------------------------------------------------------
# Byte-level BPE (GPT-2 / RoBERTa), written from the GPT-2 encoder's rules.

GPT2_SPLIT = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


BYTE_CHAR = bytes_to_unicode()


def pretokenize_bytes(text):
    """Pre-tokens of text as (byte-level string, byte start, byte end)."""
    out = []
    for m in GPT2_SPLIT.finditer(text):
        start = len(text[: m.start()].encode("utf-8"))
        piece = m.group().encode("utf-8")
        out.append(("".join(BYTE_CHAR[b] for b in piece), start, start + len(piece)))
    return out


class ByteBPE:
    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.ranks = {tuple(m.split(" ")): i for i, m in enumerate(merges)}

    def bpe(self, word):
        parts = list(word)
        while len(parts) > 1:
            best = None
            for i in range(len(parts) - 1):
                r = self.ranks.get((parts[i], parts[i + 1]))
                if r is not None and (best is None or r < best[0]):
                    best = (r, i)
            if best is None:
                break
            a, b = parts[best[1]], parts[best[1] + 1]
            merged, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and parts[i] == a and parts[i + 1] == b:
                    merged.append(a + b)
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        return parts

    def encode(self, text):
        """Token ids with untrimmed byte offsets [(id, start, end)]."""
        out = []
        for word, start, _ in pretokenize_bytes(text):
            pos = start
            for tok in self.bpe(word):
                out.append((self.vocab[tok], pos, pos + len(tok)))
                pos += len(tok)
        return out


def train_byte_bpe(corpus, num_merges):
    counts = {}
    for line in corpus.strip().split("\n"):
        for word, _, _ in pretokenize_bytes(line):
            counts[word] = counts.get(word, 0) + 1
    words = {w: list(w) for w in counts}
    merges = []
    for _ in range(num_merges):
        pairs = {}
        for w, parts in words.items():
            for i in range(len(parts) - 1):
                p = (parts[i], parts[i + 1])
                pairs[p] = pairs.get(p, 0) + counts[w]
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        for w, parts in words.items():
            merged, i = [], 0
            while i < len(parts):
                if i < len(parts) - 1 and (parts[i], parts[i + 1]) == best:
                    merged.append(parts[i] + parts[i + 1])
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            words[w] = merged
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for b in range(256):
        vocab[BYTE_CHAR[b]] = len(vocab)
    for a, b in merges:
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    vocab["<mask>"] = len(vocab)
    return vocab, [a + " " + b for a, b in merges]


def roberta_tokenizer_json(vocab, merges):
    def added(i, content, lstrip=False):
        return {"id": i, "content": content, "single_word": False, "lstrip": lstrip,
                "rstrip": False, "normalized": False, "special": True}

    model_vocab = {k: v for k, v in vocab.items() if k != "<mask>"}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added(0, "<s>"), added(1, "<pad>"), added(2, "</s>"), added(3, "<unk>"),
                         added(vocab["<mask>"], "<mask>", lstrip=True)],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                           "trim_offsets": True, "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": model_vocab, "merges": merges},
    }


# ---------------------------------------------------------------------------
# WordPiece (BERT, uncased), written from BERT's tokenization.py rules.

def is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    import unicodedata
    return unicodedata.category(ch).startswith("P")


def bert_basic(text):
    """Lower-cased words and punctuation with byte offsets (accents kept)."""
    out = []
    i, data = 0, text
    byte_pos = [0]
    for ch in data:
        byte_pos.append(byte_pos[-1] + len(ch.encode("utf-8")))
    n = len(data)
    while i < n:
        ch = data[i]
        if ch.isspace():
            i += 1
            continue
        if is_punct(ch):
            out.append((ch.lower(), byte_pos[i], byte_pos[i + 1]))
            i += 1
            continue
        j = i
        while j < n and not data[j].isspace() and not is_punct(data[j]):
            j += 1
        out.append((data[i:j].lower(), byte_pos[i], byte_pos[j]))
        i = j
    return out


class WordPiece:
    def __init__(self, vocab):
        self.vocab = vocab

    def encode(self, text):
        out = []
        for word, start, end in bert_basic(text):
            pieces, pos, ok = [], 0, True
            wb = word.encode("utf-8")
            while pos < len(word):
                sub = None
                for e in range(len(word), pos, -1):
                    cand = word[pos:e] if pos == 0 else "##" + word[pos:e]
                    if cand in self.vocab:
                        sub = (cand, e)
                        break
                if sub is None:
                    ok = False
                    break
                pieces.append(sub)
                pos = sub[1]
            if not ok:
                out.append((self.vocab["[UNK]"], start, end))
                continue
            prev = 0
            for cand, e in pieces:
                b = len(word[:e].encode("utf-8"))
                out.append((self.vocab[cand], start + prev, start + b))
                prev = b
            assert len(wb) == end - start
        return out


def train_wordpiece(corpus, size):
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    words = {}
    for w, _, _ in bert_basic(corpus):
        words[w] = words.get(w, 0) + 1
    chars = sorted({c for w in words for c in w})
    for c in chars:
        vocab.setdefault(c, len(vocab))
    for c in chars:
        vocab.setdefault("##" + c, len(vocab))
    for w in sorted(words, key=lambda w: (-words[w], w)):
        if len(vocab) >= size:
            break
        vocab.setdefault(w, len(vocab))
    return vocab


def bert_tokenizer_json(vocab):
    def added(i, content):
        return {"id": i, "content": content, "single_word": False, "lstrip": False,
                "rstrip": False, "normalized": False, "special": True}

    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added(vocab[t], t) for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": False, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }


# ---------------------------------------------------------------------------
# Chunking and aggregation: the rules of nli/onnxnli, a second time.

SPACE = b" \t\n\r\f\v"
CLOSERS = b"\"')]"


def sentence_cuts(tokens, text):
    """Token indices before which a sentence starts."""
    cuts = set()
    n = len(tokens)
    for q in range(1, len(text)):
        if text[q] not in SPACE:
            continue
        p = q - 1
        while p >= 0 and text[p] in CLOSERS:
            p -= 1
        if p < 0 or text[p] not in b".!?":
            continue
        for i, (_, s, _) in enumerate(tokens):
            if s >= q:
                if 0 < i < n:
                    cuts.add(i)
                break
    return cuts


def word_cuts(tokens, text):
    cuts = set()
    for i in range(1, len(tokens)):
        s, prev_end = tokens[i][1], tokens[i - 1][2]
        if s > prev_end or (s < len(text) and text[s] in SPACE):
            cuts.add(i)
    return cuts


def chunk(tokens, text, budget):
    n = len(tokens)
    if n <= budget:
        return [(0, n)]
    sent, word = sentence_cuts(tokens, text), word_cuts(tokens, text)
    out, a = [], 0
    while a < n:
        if n - a <= budget:
            out.append((a, n))
            break
        lim = a + budget
        b = max([c for c in sent if a < c <= lim], default=None)
        if b is None:
            b = max([c for c in word if a < c <= lim], default=lim)
        out.append((a, b))
        a = b
    return out


def plan_pair(prem, ptext, hyp, htext, window, specials):
    """Premise chunks and hypothesis chunks [(start, end)]: every premise
    chunk goes to the model with every hypothesis chunk."""
    room = window - specials
    if len(prem) + len(hyp) <= room:
        return [(0, len(prem))], [(0, len(hyp))]
    if len(hyp) <= room // 2:
        return chunk(prem, ptext, room - len(hyp)), [(0, len(hyp))]
    hyps = chunk(hyp, htext, room // 2)
    longest = max(b - a for a, b in hyps)
    return chunk(prem, ptext, room - longest), hyps


# ---------------------------------------------------------------------------
# The model: weights, ONNX graph, numpy forward pass.

def make_weights(cfg, seed, scale, labels=3):
    rng = np.random.default_rng(seed)
    H, I, V, P, T = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], cfg["max_position_embeddings"], cfg["type_vocab_size"]

    def rnd(*shape, s=scale):
        return (rng.standard_normal(shape) * s).astype(np.float32)

    w = {
        "word": rnd(V, H, s=1.0), "pos": rnd(P, H, s=0.5), "type": rnd(T, H, s=0.5),
        "emb_ln_g": (1 + rnd(H, s=0.1)), "emb_ln_b": rnd(H, s=0.1),
        "layers": [],
        "head_w": rnd(H, H), "head_b": rnd(H, s=0.1),
        "out_w": rnd(H, labels, s=0.5), "out_b": rnd(labels, s=0.1),
    }
    for _ in range(cfg["num_hidden_layers"]):
        w["layers"].append({
            "q_w": rnd(H, H), "q_b": rnd(H, s=0.1), "k_w": rnd(H, H), "k_b": rnd(H, s=0.1),
            "v_w": rnd(H, H), "v_b": rnd(H, s=0.1), "o_w": rnd(H, H), "o_b": rnd(H, s=0.1),
            "ln1_g": 1 + rnd(H, s=0.1), "ln1_b": rnd(H, s=0.1),
            "i_w": rnd(H, I), "i_b": rnd(I, s=0.1), "f_w": rnd(I, H), "f_b": rnd(H, s=0.1),
            "ln2_g": 1 + rnd(H, s=0.1), "ln2_b": rnd(H, s=0.1),
        })
    return w


MASK_VALUE = -1e9  # added to attention scores of padding


def build_graph(cfg, w, arch):
    H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    dh = H // nh
    eps = cfg["layer_norm_eps"]
    nodes, inits = [], []
    count = [0]

    def name(base):
        count[0] += 1
        return "%s_%d" % (base, count[0])

    def const(arr, base="c"):
        n = name(base)
        inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(kind, inputs, base=None, **attrs):
        out = name(base or kind.lower())
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x, wt, b):
        return op("Add", [op("MatMul", [x, const(wt, "w")]), const(b, "b")])

    def layer_norm(x, g, b):
        return op("LayerNormalization", [x, const(g, "ln_g"), const(b, "ln_b")], axis=-1, epsilon=eps)

    ids, mask = "input_ids", "attention_mask"
    if arch == "roberta":
        pad = cfg["pad_token_id"]
        not_pad = op("Cast", [op("Not", [op("Equal", [ids, const(np.array(pad, np.int64))])])], to=TensorProto.INT64)
        cum = op("CumSum", [not_pad, const(np.array(1, np.int64))])
        pos = op("Add", [op("Mul", [cum, not_pad]), const(np.array(pad, np.int64))])
        types = op("Mul", [ids, const(np.array(0, np.int64))])
    else:
        seq_len = op("Gather", [op("Shape", [ids]), const(np.array(1, np.int64))], axis=0)
        pos = op("Range", [const(np.array(0, np.int64)), seq_len, const(np.array(1, np.int64))])
        types = "token_type_ids"
    x = op("Add", [op("Gather", [const(w["word"], "word_emb"), ids], axis=0),
                   op("Gather", [const(w["pos"], "pos_emb"), pos], axis=0)])
    x = op("Add", [x, op("Gather", [const(w["type"], "type_emb"), types], axis=0)])
    x = layer_norm(x, w["emb_ln_g"], w["emb_ln_b"])

    maskf = op("Cast", [mask], to=TensorProto.FLOAT)
    ext = op("Mul", [op("Sub", [const(np.array(1, np.float32)), maskf]), const(np.array(MASK_VALUE, np.float32))])
    ext = op("Unsqueeze", [ext, const(np.array([1, 2], np.int64))])  # [B,1,1,T]
    heads_shape = const(np.array([0, 0, nh, dh], np.int64))
    merged_shape = const(np.array([0, 0, H], np.int64))
    scale = const(np.array(1 / math.sqrt(dh), np.float32))

    for L in w["layers"]:
        def split_heads(t):
            return op("Transpose", [op("Reshape", [t, heads_shape])], perm=[0, 2, 1, 3])

        q = split_heads(linear(x, L["q_w"], L["q_b"]))
        k = split_heads(linear(x, L["k_w"], L["k_b"]))
        v = split_heads(linear(x, L["v_w"], L["v_b"]))
        scores = op("Mul", [op("MatMul", [q, op("Transpose", [k], perm=[0, 1, 3, 2])]), scale])
        probs = op("Softmax", [op("Add", [scores, ext])], axis=-1)
        ctx = op("Reshape", [op("Transpose", [op("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merged_shape])
        x = layer_norm(op("Add", [linear(ctx, L["o_w"], L["o_b"]), x]), L["ln1_g"], L["ln1_b"])
        h = linear(x, L["i_w"], L["i_b"])
        gelu = op("Mul", [op("Mul", [h, const(np.array(0.5, np.float32))]),
                          op("Add", [op("Erf", [op("Div", [h, const(np.array(math.sqrt(2), np.float32))])]),
                                     const(np.array(1, np.float32))])])
        x = layer_norm(op("Add", [linear(gelu, L["f_w"], L["f_b"]), x]), L["ln2_g"], L["ln2_b"])

    first = op("Gather", [x, const(np.array(0, np.int64))], axis=1)  # [B,H]
    pooled = op("Tanh", [linear(first, w["head_w"], w["head_b"])])
    logits = op("Add", [op("MatMul", [pooled, const(w["out_w"], "w")]), const(w["out_b"], "b")])
    nodes.append(helper.make_node("Identity", [logits], ["logits"]))

    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])]
    if arch == "bert":
        inputs.append(helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "sequence"]))
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", w["out_w"].shape[1]])]
    graph = helper.make_graph(nodes, "nli_" + arch, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make-nli-test-models")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def np_forward(cfg, w, arch, ids, types):
    """Logits for one unpadded sequence, in float64."""
    f = lambda a: np.asarray(a, np.float64)
    ids = np.asarray(ids)
    H, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    dh = H // nh
    eps = cfg["layer_norm_eps"]
    if arch == "roberta":
        pad = cfg["pad_token_id"]
        m = (ids != pad).astype(np.int64)
        pos = np.cumsum(m) * m + pad
    else:
        pos = np.arange(len(ids))

    def ln(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * f(g) + f(b)

    erf = np.vectorize(math.erf)
    x = f(w["word"])[ids] + f(w["pos"])[pos] + f(w["type"])[np.asarray(types)]
    x = ln(x, w["emb_ln_g"], w["emb_ln_b"])
    T = len(ids)
    for L in w["layers"]:
        q = (x @ f(L["q_w"]) + f(L["q_b"])).reshape(T, nh, dh).transpose(1, 0, 2)
        k = (x @ f(L["k_w"]) + f(L["k_b"])).reshape(T, nh, dh).transpose(1, 0, 2)
        v = (x @ f(L["v_w"]) + f(L["v_b"])).reshape(T, nh, dh).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
        s = np.exp(s - s.max(-1, keepdims=True))
        p = s / s.sum(-1, keepdims=True)
        ctx = (p @ v).transpose(1, 0, 2).reshape(T, H)
        x = ln(ctx @ f(L["o_w"]) + f(L["o_b"]) + x, L["ln1_g"], L["ln1_b"])
        h = x @ f(L["i_w"]) + f(L["i_b"])
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = ln(h @ f(L["f_w"]) + f(L["f_b"]) + x, L["ln2_g"], L["ln2_b"])
    pooled = np.tanh(x[0] @ f(w["head_w"]) + f(w["head_b"]))
    return pooled @ f(w["out_w"]) + f(w["out_b"])


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


# ---------------------------------------------------------------------------

ID2LABEL = {
    "roberta": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"},  # roberta-large-mnli's order
    "bert": {"0": "entailment", "1": "neutral", "2": "contradiction"},
}


def config_json(arch, cfg, id2label=None):
    if id2label is None:
        id2label = ID2LABEL[arch]
    c = {
        "architectures": ["RobertaForSequenceClassification" if arch == "roberta" else "BertForSequenceClassification"],
        "model_type": arch,
        "hidden_act": "gelu",
        "id2label": id2label,
        "label2id": {v: int(k) for k, v in id2label.items()},
    }
    c.update(cfg)
    return c


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


def save_model(out, model):
    data = model.SerializeToString()
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(data)


def sigmoid(z):
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


# The grounding classifiers: heads of the same architectures that answer
# "supported / not supported" (two labels, as MiniCheck's RoBERTa and
# DeBERTa exports: LABEL_1 is supported) or one score (a single logit,
# P(supported) = its sigmoid, as HHEM-1 and sentence-transformers' one-label
# cross-encoders).
GROUNDING = {
    "tiny-minicheck": ("roberta", {"0": "LABEL_0", "1": "LABEL_1"}, 1, 13),
    "tiny-score": ("bert", {"0": "LABEL_0"}, 0, 26),
}


def make_tiny(arch, out, id2label=None, positive=None, seed=None):
    """A tiny model of arch. With id2label, a grounding classifier of that
    many outputs whose output positive means supported; otherwise a 3-way
    NLI model with ID2LABEL's labels."""
    os.makedirs(out, exist_ok=True)
    if arch == "roberta":
        vocab, merges = train_byte_bpe(CORPUS, 400)
        tok = ByteBPE(vocab, merges)
        tok_json = roberta_tokenizer_json(vocab, merges)
        cls, sep, pad = 0, 2, 1
        window = 64
        cfg = {"vocab_size": len(vocab), "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
               "intermediate_size": 64, "max_position_embeddings": window + pad + 1, "type_vocab_size": 1,
               "pad_token_id": pad, "bos_token_id": 0, "eos_token_id": 2, "layer_norm_eps": 1e-5}
    else:
        vocab = train_wordpiece(CORPUS, 300)
        tok = WordPiece(vocab)
        tok_json = bert_tokenizer_json(vocab)
        cls, sep, pad = vocab["[CLS]"], vocab["[SEP]"], vocab["[PAD]"]
        window = 48
        cfg = {"vocab_size": len(vocab), "hidden_size": 24, "num_hidden_layers": 2, "num_attention_heads": 3,
               "intermediate_size": 48, "max_position_embeddings": window, "type_vocab_size": 2,
               "pad_token_id": pad, "layer_norm_eps": 1e-12}
    grounding = id2label is not None
    if seed is None:
        seed = 7 if arch == "roberta" else 11
    w = make_weights(cfg, seed=seed, scale=0.3, labels=len(id2label) if grounding else 3)
    save_model(out, build_graph(cfg, w, arch))
    write_json(os.path.join(out, "config.json"), config_json(arch, cfg, id2label))
    write_json(os.path.join(out, "tokenizer.json"), tok_json)

    specials = 4 if arch == "roberta" else 3
    if grounding:
        labels = [id2label[str(i)] for i in range(len(id2label))]
        ref = {"window": window, "specials": specials, "labels": labels, "positive": positive, "pairs": []}
    else:
        labels = [ID2LABEL[arch][str(i)].lower() for i in range(3)]
        ref = {"window": window, "specials": specials, "labels": labels, "pairs": []}
    for premise, hypothesis in PAIRS:
        ptoks, htoks = tok.encode(premise), tok.encode(hypothesis)
        chunks, hyps = plan_pair(ptoks, premise.encode("utf-8"), htoks, hypothesis.encode("utf-8"), window, specials)
        entry = {"premise": premise, "hypothesis": hypothesis,
                 "premise_ids": [t[0] for t in ptoks], "hypothesis_ids": [t[0] for t in htoks],
                 "hypothesis_chunks": [[a, b] for a, b in hyps], "chunks": []}
        dist = None  # NLI: the distribution so far; grounding: P(supported)
        for ha, hb in hyps:
            hyp_ids = [t[0] for t in htoks[ha:hb]]
            best, best_score = None, -1.0
            for a, b in chunks:
                prem_ids = [t[0] for t in ptoks[a:b]]
                if arch == "roberta":
                    ids = [cls] + prem_ids + [sep, sep] + hyp_ids + [sep]
                    types = [0] * len(ids)
                else:
                    ids = [cls] + prem_ids + [sep] + hyp_ids + [sep]
                    types = [0] * (len(prem_ids) + 2) + [1] * (len(hyp_ids) + 1)
                assert len(ids) <= window, (len(ids), window)
                logits = np_forward(cfg, w, arch, ids, types)
                if grounding:
                    # P(supported): the sigmoid of one logit, the softmax of
                    # two; MiniCheck's rule: the best premise chunk's support.
                    p = sigmoid(logits[0]) if len(logits) == 1 else float(softmax(logits)[positive])
                    decisive = p
                else:
                    p = softmax(logits)
                    decisive = max(p[labels.index("entailment")], p[labels.index("contradiction")])
                if decisive > best_score:
                    best, best_score = p, decisive
                entry["chunks"].append({"start": a, "end": b, "hypothesis_start": ha, "hypothesis_end": hb,
                                        "input_ids": ids, "token_type_ids": types,
                                        "logits": [float(v) for v in logits]})
            # Entailed (supported) as far as every hypothesis chunk is,
            # contradicted as far as any is.
            if grounding:
                dist = best if dist is None else min(dist, best)
            elif dist is None:
                dist = best.copy()
            else:
                ie, ic = labels.index("entailment"), labels.index("contradiction")
                dist[ie] = min(dist[ie], best[ie])
                dist[ic] = max(dist[ic], best[ic])
        if grounding:
            # The relation: entailment with p at 0.5 or above, else the
            # unsupported label (neutral, or contradiction when asked) with
            # 1 - p.
            entry["p_supported"] = dist
            entry["label"] = "entailment" if dist >= 0.5 else "unsupported"
            entry["probability"] = dist if dist >= 0.5 else 1 - dist
        else:
            if len(hyps) > 1:
                ie, ic = labels.index("entailment"), labels.index("contradiction")
                dist[3 - ie - ic] = max(0.0, 1 - dist[ie] - dist[ic])
            entry["probabilities"] = [float(v) for v in dist]
            entry["label"] = labels[int(np.argmax(dist))]
        ref["pairs"].append(entry)
    write_json(os.path.join(out, "reference.json"), ref)
    print("wrote %s (%d-token window, %d pairs)" % (out, window, len(PAIRS)), file=sys.stderr)


ROBERTA_TEXTS = [
    "Hello world",
    "Lanny Flaherty (born July 27, 1942) is an American actor.",
    "Next\n\nOne.  Two \n",
    "He isn't here; they'll come. We've 3.5 kg of naïve café-crème — ok?",
    "  leading spaces\tand\ttabs\r\nand CRLF",
    "東京 is Tokyo. Ünïcödé 😀 emoji",
    "It's 1990's music: 'quoted' text... and $100,000!!",
]


def make_roberta_ids(out):
    with open(ROBERTA_BASE, encoding="utf-8") as f:
        d = json.load(f)
    tok = ByteBPE(d["model"]["vocab"], d["model"]["merges"])
    texts = []
    for t in ROBERTA_TEXTS:
        texts.append({"text": t, "ids": [i for i, _, _ in tok.encode(t)]})
    write_json(out, {"tokenizer": "roberta-base (testdata/refdata/tokenizers/roberta-base/tokenizer.json)",
                     "texts": texts})
    print("wrote %s" % out, file=sys.stderr)


def make_bench(out):
    os.makedirs(out, exist_ok=True)
    with open(ROBERTA_BASE, encoding="utf-8") as f:
        tok_json = json.load(f)
    vocab_size = max(t["id"] for t in tok_json["added_tokens"]) + 1
    cfg = {"vocab_size": vocab_size, "hidden_size": 768, "num_hidden_layers": 6, "num_attention_heads": 12,
           "intermediate_size": 3072, "max_position_embeddings": 514, "type_vocab_size": 1,
           "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "layer_norm_eps": 1e-5}
    w = make_weights(cfg, seed=3, scale=0.02)
    save_model(out, build_graph(cfg, w, "roberta"))
    write_json(os.path.join(out, "config.json"), config_json("roberta", cfg))
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok_json, f, ensure_ascii=False)
    print("wrote %s" % out, file=sys.stderr)


def make_bad(out):
    """Graphs of the wrong shape, for the loader's errors: logits over two
    labels, and an input an NLI cross-encoder does not take."""
    os.makedirs(out, exist_ok=True)
    for fname, labels, input_name in [("two-labels.onnx", 2, "input_ids"), ("image-input.onnx", 3, "pixel_values")]:
        emb = numpy_helper.from_array(np.arange(20 * labels, dtype=np.float32).reshape(20, labels), "emb")
        nodes = [helper.make_node("Gather", ["emb", input_name], ["g"], axis=0),
                 helper.make_node("ReduceMean", ["g"], ["logits"], axes=[1], keepdims=0)]
        inputs = [helper.make_tensor_value_info(input_name, TensorProto.INT64, ["batch", "sequence"]),
                  helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"])]
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])]
        graph = helper.make_graph(nodes, "bad", inputs, outputs, [emb])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make-nli-test-models")
        model.ir_version = 8
        onnx.checker.check_model(model)
        with open(os.path.join(out, fname), "wb") as f:
            f.write(model.SerializeToString())
    print("wrote %s" % out, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "testdata", "nli"), help="directory of the test models")
    ap.add_argument("--roberta-ids", action="store_true", help="write roberta-base-ids.json")
    ap.add_argument("--bench", metavar="DIR", help="write a distilroberta-size random model into DIR")
    args = ap.parse_args()
    if args.bench:
        make_bench(args.bench)
        return
    if args.roberta_ids:
        make_roberta_ids(os.path.join(args.out, "roberta-base-ids.json"))
        return
    make_tiny("roberta", os.path.join(args.out, "tiny-roberta"))
    make_tiny("bert", os.path.join(args.out, "tiny-bert"))
    for name, (arch, id2label, positive, seed) in GROUNDING.items():
        make_tiny(arch, os.path.join(args.out, name), id2label, positive, seed)
    make_bad(os.path.join(args.out, "bad"))


if __name__ == "__main__":
    main()
