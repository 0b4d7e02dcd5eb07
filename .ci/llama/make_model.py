#!/usr/bin/env python3
"""Write a tiny deterministic Qwen2-architecture GGUF model for scv's llama-server tests.

No weights are downloaded: the tokenizer (vocabulary, merges, chat template) is copied from
llama.cpp's own models/ggml-vocab-qwen2.gguf, and the network is built so that greedy decoding
is fully predictable. Attention and feed-forward weights are zero, so each position's hidden
state is its own token's embedding; every embedding is e0 except SAY's, which is e1, and the
output matrix maps e0 -> SAY and e1 -> end-of-turn. The model therefore answers every prompt
with the single token SAY ("Hello" by default) and stops.

usage: make_model.py VOCAB_GGUF OUT_GGUF [--say TOKEN] [--ctx N]
"""
import argparse
import numpy as np
import gguf

p = argparse.ArgumentParser()
p.add_argument("vocab")
p.add_argument("out")
p.add_argument("--say", default="Hello")
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

n_embd, n_head, n_kv, n_ff, n_layer = 16, 2, 2, 32, 1
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
w.add_chat_template(string("tokenizer.chat_template"))

f32 = np.float32
emb = np.zeros((n_vocab, n_embd), f32)
emb[:, 0] = 1.0
emb[say, 0] = 0.0
emb[say, 1] = 1.0
out = np.zeros((n_vocab, n_embd), f32)
out[say, 0] = 20.0
out[eot, 1] = 20.0
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
