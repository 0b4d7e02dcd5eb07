#!/usr/bin/env python3
"""Write a tiny deterministic Qwen2-architecture GGUF model for scv's llama-server tests.

No weights are downloaded: the tokenizer (vocabulary, merges, chat template) is copied from
llama.cpp's own models/ggml-vocab-qwen2.gguf, and the network is built so that greedy decoding
is fully predictable. Attention and feed-forward weights are zero, so each position's hidden
state is its own token's embedding; every embedding is e0 except SAY's, which is e1, and the
output matrix maps e0 -> SAY and e1 -> end-of-turn. The model therefore answers every prompt
with the single token SAY ("Hello" by default) and stops.

With --reply TEXT the model is a bigram table instead: the answer to every prompt spells TEXT,
one token after another (each token of TEXT is used once, so that the token alone says what
comes next), then ends the turn; --after LAST=TEXT makes a prompt whose last token is LAST
answered with TEXT. The tool-call model answers with a Hermes-style `<tool_call>` and, after a
tool's result (its chat template ends that prompt with a blank line, token LAST), with "Done".

usage: make_model.py VOCAB_GGUF OUT_GGUF [--say TOKEN | --reply TEXT [--after LAST=TEXT]] [--ctx N]
"""
import argparse
import numpy as np
import gguf

p = argparse.ArgumentParser()
p.add_argument("vocab")
p.add_argument("out")
p.add_argument("--say", default="Hello")
p.add_argument("--reply")
p.add_argument("--after", action="append", default=[])
p.add_argument("--prompt-end", default="Ċ", help="the last token of a prompt (never in a reply)")
p.add_argument("--template", help="a chat template file to use instead of the vocabulary's")
p.add_argument("--ctx", type=int, default=4096)
a = p.parse_args()

r = gguf.GGUFReader(a.vocab)
def field(name):
    f = r.fields[name]
    return f
def scalar(name):
    f = field(name)
    return f.parts[f.data[0]][0]
def string(name):
    f = field(name)
    return bytes(f.parts[f.data[0]]).decode()
def strings(name):
    f = field(name)
    return [bytes(f.parts[i]).decode() for i in f.data]
def ints(name):
    f = field(name)
    return [int(f.parts[i][0]) for i in f.data]

tokens = strings("tokenizer.ggml.tokens")
n_vocab = len(tokens)
say = tokens.index(a.say)
eot = tokens.index("<|im_end|>")

def byte_level(text):
    """GPT-2's byte-to-unicode mapping, in which the vocabulary's tokens are written."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + \
        list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    table = dict(zip(bs, map(chr, cs)))
    return "".join(table[b] for b in text.encode())

index = {t: i for i, t in enumerate(tokens)}

def spell(text, used):
    """Token ids spelling TEXT, none of them in USED and none twice (each id then says alone
    what comes next): a search, longest token first, that backs off when the rest cannot be
    spelt with the tokens left. USED gains the ids."""
    target = byte_level(text)
    tried = 0

    def go(at, taken):
        nonlocal tried
        if at == len(target):
            return []
        tried += 1
        if tried > 5_000_000:
            return None
        for n in range(min(len(target) - at, 32), 0, -1):
            i = index.get(target[at:at + n])
            if i is None or i in used or i in taken:
                continue
            taken.add(i)
            rest = go(at + n, taken)
            if rest is not None:
                return [i] + rest
            taken.discard(i)
        return None

    ids = go(0, set())
    if ids is None:
        raise SystemExit(f"cannot spell {text!r} with each token once")
    used.update(ids)
    return ids

# Bigram table: source class -> next token. Class 0 is every token not named.
if a.reply is not None:
    used = {eot, index[a.prompt_end]}
    starts = []  # (last token, reply ids)
    for pair in a.after:
        last, text = pair.split("=", 1)
        used.add(index[last])
        starts.append((index[last], None, text))
    chains = [(None, spell(a.reply, used))]
    for last, _, text in starts:
        chains.append((last, spell(text, used)))
    classes = {}  # token id -> its class (embedding dimension)
    nexts = [chains[0][1][0]]  # class 0 answers with the reply's first token
    for last, ids in chains:
        if last is not None:
            classes[last] = len(nexts)
            nexts.append(ids[0])
        for here, after in zip(ids, ids[1:] + [eot]):
            classes[here] = len(nexts)
            nexts.append(after)
else:
    classes = {say: 1}
    nexts = [say, eot]

n_embd, n_head, n_kv, n_ff, n_layer = max(16, -(-len(nexts) // 16) * 16), 2, 2, 32, 1
w = gguf.GGUFWriter(a.out, "qwen2")
w.add_name("scv-test-qwen2")
w.add_context_length(a.ctx)
w.add_embedding_length(n_embd)
w.add_block_count(n_layer)
w.add_feed_forward_length(n_ff)
w.add_head_count(n_head)
w.add_head_count_kv(n_kv)
w.add_rope_freq_base(1e6)
w.add_layer_norm_rms_eps(1e-6)
w.add_file_type(0)
w.add_tokenizer_model(string("tokenizer.ggml.model"))
w.add_tokenizer_pre(string("tokenizer.ggml.pre"))
w.add_token_list(tokens)
w.add_token_types(ints("tokenizer.ggml.token_type"))
w.add_token_merges(strings("tokenizer.ggml.merges"))
w.add_eos_token_id(eot)
w.add_bos_token_id(int(scalar("tokenizer.ggml.bos_token_id")))
w.add_pad_token_id(int(scalar("tokenizer.ggml.padding_token_id")))
w.add_add_bos_token(False)
if a.template:
    template = open(a.template).read()
    # After a tool's result the prompt ends with a blank line (one token of its own), so that
    # a bigram model can answer it differently from a user's prompt.
    end = "{{- '<|im_start|>assistant\\n' }}"
    if template.count(end) != 1:
        raise SystemExit(f"{a.template}: expected one generation prompt {end}")
    template = template.replace(end, "{%- if messages[-1].role == 'tool' %}"
                                "{{- '<|im_start|>assistant\\n\\n' }}{%- else %}" + end +
                                "{%- endif %}")
    w.add_chat_template(template)
else:
    w.add_chat_template(string("tokenizer.chat_template"))

f32 = np.float32
emb = np.zeros((n_vocab, n_embd), f32)
emb[:, 0] = 1.0
for token, k in classes.items():
    emb[token, 0] = 0.0
    emb[token, k] = 1.0
out = np.zeros((n_vocab, n_embd), f32)
for k, token in enumerate(nexts):
    out[token, k] = 20.0
w.add_tensor("token_embd.weight", emb)
w.add_tensor("output_norm.weight", np.ones(n_embd, f32))
w.add_tensor("output.weight", out)
hd = n_embd // n_head
for i in range(n_layer):
    b = f"blk.{i}."
    w.add_tensor(b + "attn_norm.weight", np.ones(n_embd, f32))
    w.add_tensor(b + "attn_q.weight", np.zeros((n_embd, n_embd), f32))
    w.add_tensor(b + "attn_q.bias", np.zeros(n_embd, f32))
    w.add_tensor(b + "attn_k.weight", np.zeros((n_kv * hd, n_embd), f32))
    w.add_tensor(b + "attn_k.bias", np.zeros(n_kv * hd, f32))
    w.add_tensor(b + "attn_v.weight", np.zeros((n_kv * hd, n_embd), f32))
    w.add_tensor(b + "attn_v.bias", np.zeros(n_kv * hd, f32))
    w.add_tensor(b + "attn_output.weight", np.zeros((n_embd, n_embd), f32))
    w.add_tensor(b + "ffn_norm.weight", np.ones(n_embd, f32))
    w.add_tensor(b + "ffn_gate.weight", np.zeros((n_ff, n_embd), f32))
    w.add_tensor(b + "ffn_up.weight", np.zeros((n_ff, n_embd), f32))
    w.add_tensor(b + "ffn_down.weight", np.zeros((n_embd, n_ff), f32))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
