"""Tiny random models of every family the transformers path runs, built here (a config and
``save_pretrained`` into a folder, and a tokenizer trained on a few sentences): nothing is
downloaded. Their numbers mean nothing; what they test is that the trace is the model's."""
from __future__ import annotations

import json
from pathlib import Path

from attention_explainer.attention_core import bert

FAMILIES = ("roberta", "xlm-roberta", "camembert", "distilbert", "electra", "albert",
            "modernbert", "mpnet", "deberta-v2", "gpt2",
            "llama", "mistral", "qwen2", "qwen3", "phi3", "gemma", "gemma2", "gemma3_text",
            "starcoder2", "olmo", "olmo2", "granite", "smollm3", "phi", "gpt_neox", "falcon",
            "opt")
DECODERS = ("gpt2", "llama", "mistral", "qwen2", "qwen3", "phi3", "gemma", "gemma2",
            "gemma3_text", "starcoder2", "olmo", "olmo2", "granite", "smollm3", "phi", "gpt_neox",
            "falcon", "opt")
ROTARY = ("modernbert", "llama", "mistral", "qwen2", "qwen3", "phi3", "gemma", "gemma2", "gemma3_text",
          "starcoder2", "olmo", "olmo2", "granite", "smollm3", "phi", "gpt_neox", "falcon")
TEXT = ["The animal didn't cross the street because it was too tired.",
        "The chef who won the prize cooked for the guests.",
        "Le chat a mangé la souris parce qu'elle était lente.",
        "A small model of every family, built here from a config.",
        "我爱北京天安门，因为那里很美"] * 4
SIZE = dict(hidden=32, layers=2, heads=4, kv_heads=2, inner=64, positions=64)


def _bpe_tokenizer(start: str | None, end: str | None, pair: bool = False):
    """A byte-level BPE trained on TEXT; ``start``/``end`` added around a sentence."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = [t for t in ("<pad>", start, end) if t]
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(TEXT, trainer)
    if start or end:
        single = " ".join([*([start] if start else []), "$A", *([end] if end else [])])
        tok.post_processor = processors.TemplateProcessing(
            single=single, special_tokens=[(t, tok.token_to_id(t)) for t in specials[1:]])
    return tok


def config_for(family: str, vocab: int, **changes):
    import transformers as T

    h, n, a, kv, i, p = (SIZE[k] for k in ("hidden", "layers", "heads", "kv_heads", "inner",
                                           "positions"))
    common = dict(vocab_size=vocab)
    if family in ("roberta", "xlm-roberta", "camembert"):
        c = {"roberta": T.RobertaConfig, "xlm-roberta": T.XLMRobertaConfig,
             "camembert": T.CamembertConfig}[family](hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                            intermediate_size=i, max_position_embeddings=p + 2, pad_token_id=0,
                            bos_token_id=1, eos_token_id=2, **common)
    elif family == "distilbert":
        c = T.DistilBertConfig(dim=h, n_layers=n, n_heads=a, hidden_dim=i,
                               max_position_embeddings=p, **common)
    elif family == "electra":
        c = T.ElectraConfig(embedding_size=h, hidden_size=h, num_hidden_layers=n,
                            num_attention_heads=a, intermediate_size=i,
                            max_position_embeddings=p, **common)
    elif family == "gpt_neox":         # Pythia's: a quarter of each head's dimensions turn
        c = T.GPTNeoXConfig(hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                            intermediate_size=i, max_position_embeddings=p, rotary_pct=0.25,
                            bos_token_id=None, eos_token_id=None, **common)
    elif family == "phi":              # Phi-2's: half of each head's dimensions turn
        c = T.PhiConfig(hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                        intermediate_size=i, max_position_embeddings=p,
                        partial_rotary_factor=0.5, **common)
    elif family == "opt":              # its position table starts two rows in
        c = T.OPTConfig(hidden_size=h, num_hidden_layers=n, num_attention_heads=a, ffn_dim=i,
                        max_position_embeddings=p, word_embed_proj_dim=h, pad_token_id=0,
                        bos_token_id=None, eos_token_id=None, **common)
    elif family == "albert":           # its embeddings narrower than its layers, as ALBERT's
        c = T.AlbertConfig(embedding_size=h // 2, hidden_size=h, num_hidden_layers=n,
                           num_attention_heads=a, intermediate_size=i,
                           max_position_embeddings=p, pad_token_id=0, bos_token_id=1,
                           eos_token_id=2, **common)
    elif family == "falcon":           # Falcon-40B's layout: grouped queries, fused group by group
        c = T.FalconConfig(hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                           num_kv_heads=kv, new_decoder_architecture=True,
                           max_position_embeddings=p, bos_token_id=1, eos_token_id=2, **common)
    elif family == "modernbert":       # its first layer global, its second sees 3 each way
        c = T.ModernBertConfig(hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                               intermediate_size=i, max_position_embeddings=p,
                               global_attn_every_n_layers=2, local_attention=6,
                               pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
                               sep_token_id=2, **common)
    elif family in SCORE_TERMS:
        c = _score_terms_config(family, vocab)
    elif family == "gpt2":
        c = T.GPT2Config(n_embd=h, n_layer=n, n_head=a, n_positions=p, bos_token_id=None,
                         eos_token_id=None, **common)
    else:
        kind = {"llama": T.LlamaConfig, "mistral": T.MistralConfig, "qwen2": T.Qwen2Config,
                "qwen3": T.Qwen3Config, "phi3": T.Phi3Config, "gemma": T.GemmaConfig,
                "gemma2": T.Gemma2Config, "gemma3_text": T.Gemma3TextConfig,
                "starcoder2": T.Starcoder2Config, "olmo": T.OlmoConfig, "olmo2": T.Olmo2Config,
                "granite": T.GraniteConfig, "smollm3": T.SmolLM3Config}
        # Qwen3's heads are wider than the width over the heads, as Qwen3-0.6B's are;
        # Gemma's config says 256 unless told. Gemma 2 scales its scores by a number of
        # its own and caps them, and alternates windowed and full layers (so does Gemma
        # 3); Granite scales its scores and ΔE by numbers of its own; SmolLM3's second
        # layer uses no positions.
        extra = {"sliding_window": 6} if family == "mistral" else \
            {"head_dim": 2 * h // a} if family == "qwen3" else \
            {"head_dim": h // a} if family == "gemma" else \
            {"head_dim": h // a, "query_pre_attn_scalar": 16, "sliding_window": 4,
             "attn_logit_softcapping": 5.0} if family == "gemma2" else \
            {"head_dim": h // a, "query_pre_attn_scalar": h // a, "sliding_window": 4,
             "sliding_window_pattern": 2,
             "layer_types": ["sliding_attention", "full_attention"]} \
            if family == "gemma3_text" else \
            {"attention_multiplier": 0.25, "residual_multiplier": 0.5,
             "embedding_multiplier": 4.0} if family == "granite" else \
            {"no_rope_layer_interval": 2} if family == "smollm3" else {}
        c = kind[family](hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                         num_key_value_heads=kv, intermediate_size=i, max_position_embeddings=p,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0, **extra, **common)
    for key, value in changes.items():
        setattr(c, key, value)
    return c


SCORE_TERMS = ("mpnet", "deberta-v2")     # the families that add terms of their own to scores


def _score_terms_config(family: str, vocab: int):
    """MPNet's (its relative position bias: 32 buckets, as MPNet's) or DeBERTa-v3's
    (positions in the scores alone, both terms, log buckets past a few tokens, the key
    shared)."""
    import transformers as T

    h, n, a, i, p = (SIZE[k] for k in ("hidden", "layers", "heads", "inner", "positions"))
    if family == "mpnet":
        return T.MPNetConfig(hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                             intermediate_size=i, max_position_embeddings=p + 2,
                             relative_attention_num_buckets=32, pad_token_id=0,
                             bos_token_id=1, eos_token_id=2, vocab_size=vocab)
    return T.DebertaV2Config(hidden_size=h, num_hidden_layers=n, num_attention_heads=a,
                             intermediate_size=i, max_position_embeddings=p,
                             relative_attention=True, position_buckets=8,
                             max_relative_positions=p, pos_att_type=["p2c", "c2p"],
                             position_biased_input=False, share_att_key=True,
                             norm_rel_ebd="layer_norm", pad_token_id=0, vocab_size=vocab)


def build(family: str, folder: Path, seed: int = 0, **changes) -> Path:
    """A tiny random model of ``family`` saved into ``folder`` (config.json,
    model.safetensors, tokenizer.json); ``changes`` set on its config."""
    import torch
    import transformers as T

    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if family in ("distilbert", "electra"):       # WordPiece, as they ship
        tokenizer_json = (bert.minilm_dir() / "tokenizer.json").read_text()
        vocab = 30522
    else:
        start, end = {"roberta": ("<s>", "</s>"), "xlm-roberta": ("<s>", "</s>"),
                      "camembert": ("<s>", "</s>"), "mpnet": ("<s>", "</s>"),
                      "llama": ("<s>", None),
                      "mistral": ("<s>", None)}.get(family, (None, None))
        tok = _bpe_tokenizer(start, end)
        tokenizer_json = tok.to_str()
        vocab = tok.get_vocab_size()
    config = config_for(family, vocab, **changes)
    torch.manual_seed(seed)
    model = T.AutoModel.from_config(config)
    with torch.no_grad():        # random weights large enough that heads differ visibly
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.3)
    model.save_pretrained(str(folder), safe_serialization=True)
    (folder / "tokenizer.json").write_text(tokenizer_json)
    return folder


def oracle_attentions(folder: Path, sentence: str):
    """transformers' own eager attention weights for the sentence, every layer (L x H x T x T
    numpy), with the ids the folder's tokenizer gives."""
    import numpy as np
    import torch
    import transformers as T
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    ids = tok.encode(sentence).ids
    model = T.AutoModel.from_pretrained(str(folder), attn_implementation="eager",
                                        local_files_only=True).eval()
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), output_attentions=True)
    return np.stack([a[0].numpy() for a in out.attentions]), ids


def write_config(folder: Path, **changes) -> None:
    path = Path(folder) / "config.json"
    config = json.loads(path.read_text())
    config.update(changes)
    path.write_text(json.dumps(config))


def build_seq2seq(family: str, folder: Path, seed: int = 0) -> Path:
    """A tiny random encoder–decoder ("t5" or "bart") saved into ``folder`` with a fast
    tokenizer trained here on TEXT (T5: a Unigram with </s> after a sentence; BART: a
    byte-level BPE between <s> and </s>)."""
    import transformers as T
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if family == "t5":
        tok = Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        tok.train_from_iterator(TEXT, trainers.UnigramTrainer(
            vocab_size=300, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>",
            show_progress=False))
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", special_tokens=[("</s>", tok.token_to_id("</s>"))])
        fast = T.T5TokenizerFast(tokenizer_object=tok, eos_token="</s>", pad_token="<pad>",
                                 unk_token="<unk>", extra_ids=0)
        config = T.T5Config(vocab_size=tok.get_vocab_size(), d_model=32, d_kv=8, d_ff=64,
                            num_layers=2, num_heads=4, decoder_start_token_id=0,
                            pad_token_id=0, eos_token_id=1)
    else:
        tok = _bpe_tokenizer("<s>", "</s>")
        fast = T.BartTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", unk_token="<pad>", mask_token="<pad>")
        config = T.BartConfig(vocab_size=tok.get_vocab_size(), d_model=32, encoder_layers=2,
                              decoder_layers=2, encoder_attention_heads=4,
                              decoder_attention_heads=4, encoder_ffn_dim=64,
                              decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=0,
                              bos_token_id=tok.token_to_id("<s>"),
                              eos_token_id=tok.token_to_id("</s>"),
                              decoder_start_token_id=tok.token_to_id("</s>"),
                              forced_eos_token_id=None)
    return _saved_random(config, fast, folder, seed)


def _saved_random(config, tokenizer, folder: Path, seed: int) -> Path:
    """An encoder–decoder of ``config`` with random weights large enough that heads
    differ, saved into ``folder`` with its tokenizer."""
    import torch
    import transformers as T

    torch.manual_seed(seed)
    model = T.AutoModelForSeq2SeqLM.from_config(config)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.3)
    model.save_pretrained(str(folder), safe_serialization=True)
    tokenizer.save_pretrained(str(folder))
    return folder


def build_marian(folder: Path, seed: int = 0) -> Path:
    """A tiny random Marian (opus-mt's architecture) with a SentencePiece model trained here
    on TEXT for both sides, saved as Marian folders are: source.spm, target.spm, vocab.json."""
    import io

    import sentencepiece as spm
    import transformers as T

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(TEXT), model_writer=model,
                                   vocab_size=70, pad_id=3, character_coverage=1.0,
                                   minloglevel=2)
    work = folder / "spm-work"
    work.mkdir()
    (work / "source.spm").write_bytes(model.getvalue())
    pieces = spm.SentencePieceProcessor(model_proto=model.getvalue())
    vocab = {pieces.id_to_piece(i): i for i in range(pieces.get_piece_size())}
    (work / "vocab.json").write_text(json.dumps(vocab))
    tokenizer = T.MarianTokenizer(str(work / "source.spm"), str(work / "source.spm"),
                                  str(work / "vocab.json"), unk_token="<unk>", eos_token="</s>",
                                  pad_token="<pad>")
    config = T.MarianConfig(vocab_size=len(vocab), d_model=32, encoder_layers=2,
                            decoder_layers=2, encoder_attention_heads=4,
                            decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                            max_position_embeddings=64, pad_token_id=vocab["<pad>"],
                            eos_token_id=vocab["</s>"], decoder_start_token_id=vocab["<pad>"],
                            forced_eos_token_id=None)
    _saved_random(config, tokenizer, folder, seed)
    for path in work.iterdir():
        path.unlink()
    work.rmdir()
    return folder
