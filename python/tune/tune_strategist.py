"""Teach the local model to play: a LoRA adapter for Gemma 3 that answers the strategist's
compact question ("1,3": one skill number per agent) the way a teacher does.

`npm run llm:tune` writes the examples (the prompt in the model's own tokens, the teacher's
skill per agent) and runs this file; it is a tool behind that command, not part of the
product. Read top to bottom: settings, the model, LoRA, the data, training, export.

The loss is the one the product's decoding reads: the local engine scores an answer by the
probabilities of the number tokens after the prompt (agent 1), then after "<n>," (agent 2,
...), so training is cross-entropy over those few tokens at those positions, with the
teacher's earlier numbers fed in (teacher forcing), nothing else.

Only the top `layers` layers carry LoRA, so the layers below are run once per example,
the first time it is drawn, and their output cached on disk. The system prompt is shared by every
example: its states through the tuned layers are computed once per step for the whole batch.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
from gguf import GGUFReader, GGUFWriter
from gguf.quants import dequantize


@dataclasses.dataclass
class Settings:
    """Every hyper-parameter, with why it is what it is."""

    layers: int = 6
    """Top layers that carry LoRA. 4 reached 0.43 held-out agreement after 720 example
    passes; more layers give the coordination rule (which reads the other agent's line)
    more attention to learn with, at the cost of a longer backward pass."""
    rank: int = 8
    """LoRA rank: the adapter stays under 3 MB, small enough to commit beside the skills."""
    alpha: float = 16.0
    """LoRA scale numerator (scale = alpha / rank), written into the GGUF for llama.cpp."""
    steps: int = 400
    batch: int = 8
    lr: float = 2e-3
    """Adam on LoRA weights only; B starts at zero, so step 0 is the base model."""
    warmup: int = 20
    """Linear warm-up steps, then cosine decay to 10% of lr."""
    seed: int = 0
    threads: int = 1
    """Torch threads. One: on a shared 2-core machine two threads waited on each other at
    every barrier (40 s a step of batch 8 under load)."""
    prefix_grad: int = 0
    """1: the gradient also flows through the system prompt's states in the tuned layers.
    0 (default): they are computed with the current adapter but held fixed, as the same
    prompt holds for every example; the states of each example's own tokens learn."""
    checkpoint_every: int = 50
    eval_every: int = 100
    init: str = ""
    """An adapter GGUF to start from instead of the base model (its LoRA weights, of the same
    layers, rank and alpha): a teacher that searches improves on the adapter that copied the
    rules from what that one knows, as expert iteration starts from an imitation policy. The
    rules agree with the planner on 62% of the exam's choices (kappa 0.48), where an adapter
    taught by the planner from the base model reached kappa 0.14 in 500 steps."""


TARGETS = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")


def log(event: str, **fields) -> None:
    """One JSON line per event on stdout: npm run llm:tune shows them as progress."""
    print(json.dumps({"event": event, **fields}), flush=True)


# ---------------------------------------------------------------------------------------
# The model: Gemma 3 from its GGUF file, dequantised to float32 (the 270M model: 1.1 GB).
# ---------------------------------------------------------------------------------------
class Gemma3:
    def __init__(self, path: str):
        reader = GGUFReader(path)
        arch = _field(reader, "general.architecture")
        if arch != "gemma3":
            raise SystemExit(f"{path}: this tool tunes Gemma 3 models (general.architecture gemma3), not {arch!r}")
        self.layers = int(_field(reader, "gemma3.block_count"))
        self.hidden = int(_field(reader, "gemma3.embedding_length"))
        self.heads = int(_field(reader, "gemma3.attention.head_count"))
        self.kv_heads = int(_field(reader, "gemma3.attention.head_count_kv"))
        self.head_dim = int(_field(reader, "gemma3.attention.key_length"))
        self.eps = float(_field(reader, "gemma3.attention.layer_norm_rms_epsilon"))
        self.window = int(_field(reader, "gemma3.attention.sliding_window"))
        self.rope_global = float(_field(reader, "gemma3.rope.freq_base"))
        self.rope_local = 10_000.0  # Gemma 3's local layers (not written in the GGUF)
        self.w = {t.name: torch.from_numpy(np.ascontiguousarray(dequantize(t.data, t.tensor_type), dtype=np.float32)) for t in reader.tensors}
        self.lora: dict[tuple[int, str], tuple[torch.Tensor, torch.Tensor]] = {}
        self.scale = 1.0
        self._rope: dict = {}

    def is_global(self, layer: int) -> bool:
        # Every sixth layer attends to the whole context; the others to a sliding window.
        return (layer + 1) % 6 == 0

    def embed(self, tokens) -> torch.Tensor:
        return self.w["token_embd.weight"][torch.as_tensor(tokens)] * math.sqrt(self.hidden)

    def rms(self, x, weight):
        # The GGUF's norm weights already hold Gemma's (1 + w).
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * weight

    def rope(self, x, pos, base):
        key = (base, int(pos[0]), len(pos))
        if key not in self._rope:
            half = self.head_dim // 2
            inv = 1.0 / (base ** (torch.arange(0, half, dtype=torch.float64) / half))
            angle = pos[:, None].double() * inv[None, :]
            self._rope[key] = (angle.cos().float(), angle.sin().float())
        cos, sin = self._rope[key]
        x1, x2 = x[..., : self.head_dim // 2], x[..., self.head_dim // 2 :]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)

    def linear(self, h, layer, name):
        y = h @ self.w[f"blk.{layer}.{name}.weight"].T
        pair = self.lora.get((layer, name))
        if pair is not None:
            a, b = pair
            y = y + (h @ a.T @ b.T) * self.scale
        return y

    def block(self, layer, x, pos, past):
        """Tokens `x` (batch, T, hidden) at positions `pos` through one layer, attending to
        `past` (k, v of earlier tokens, batch 1 or the same batch) and themselves. Returns
        the output and the (k, v) of past and new tokens together. A batch's rows may be
        padded at their ends: causal attention keeps padding out of every real token."""
        g = lambda n: self.w[f"blk.{layer}.{n}"]
        B, T, _ = x.shape
        base = self.rope_global if self.is_global(layer) else self.rope_local
        h = self.rms(x, g("attn_norm.weight"))
        q = self.linear(h, layer, "attn_q").view(B, T, self.heads, self.head_dim).transpose(1, 2)
        k = self.linear(h, layer, "attn_k").view(B, T, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.linear(h, layer, "attn_v").view(B, T, self.kv_heads, self.head_dim).transpose(1, 2)
        q = self.rope(self.rms(q, g("attn_q_norm.weight")), pos, base)
        k = self.rope(self.rms(k, g("attn_k_norm.weight")), pos, base)
        if past is not None:
            k = torch.cat([past[0].expand(B, -1, -1, -1), k], 2)
            v = torch.cat([past[1].expand(B, -1, -1, -1), v], 2)
        S = k.shape[2]
        kpos = torch.arange(S)[None, :]
        qpos = pos[:, None]
        mask = kpos <= qpos
        if not self.is_global(layer):
            mask &= kpos > qpos - self.window
        # One key/value head serves every query head (grouped-query attention).
        att = (q @ k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        o = self.linear((att @ v).transpose(1, 2).reshape(B, T, self.heads * self.head_dim), layer, "attn_output")
        x = x + self.rms(o, g("post_attention_norm.weight"))
        h = self.rms(x, g("ffn_norm.weight"))
        f = torch.nn.functional.gelu(self.linear(h, layer, "ffn_gate"), approximate="tanh") * self.linear(h, layer, "ffn_up")
        x = x + self.rms(self.linear(f, layer, "ffn_down"), g("post_ffw_norm.weight"))
        return x, (k, v)

    def logits(self, x, tokens):
        """Logits of `tokens` (the answer's numbers) from final hidden states `x`."""
        return self.rms(x, self.w["output_norm.weight"]) @ self.w["token_embd.weight"][tokens].T


def _field(reader: GGUFReader, key: str):
    field = reader.fields.get(key)
    if field is None:
        raise SystemExit(f"the model file has no {key}")
    value = field.parts[field.data[0]]
    return bytes(value).decode() if value.dtype == np.uint8 else value[0].item()


# ---------------------------------------------------------------------------------------
# The data: prompts in tokens, the teacher's number per agent, a weight and a split.
# ---------------------------------------------------------------------------------------
def read_examples(path: Path) -> list[dict]:
    examples = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        e = json.loads(line)
        if not (isinstance(e.get("tokens"), list) and isinstance(e.get("labels"), list) and e["labels"]):
            raise SystemExit(f"{path}:{n}: expected {{tokens: [...], labels: [...], weight, split}}")
        examples.append(e)
    if not examples:
        raise SystemExit(f"{path}: no examples")
    return examples


def shared_prefix(examples: list[dict]) -> int:
    """Tokens every prompt starts with (the system prompt), less one so each example keeps a token."""
    first = examples[0]["tokens"]
    n = min(len(e["tokens"]) for e in examples)
    for e in examples:
        n = min(n, next((i for i, (a, b) in enumerate(zip(first, e["tokens"])) if a != b), n))
    return max(n - 1, 0)


def padded(rows, start):
    """Rows of (T_i, hidden) as one (batch, T, hidden), zero-padded at their ends, and the
    positions from `start`."""
    T = max(r.shape[0] for r in rows)
    out = torch.zeros(len(rows), T, rows[0].shape[1])
    for i, r in enumerate(rows):
        out[i, : r.shape[0]] = r.float()
    return out, torch.arange(start, start + T)


def answer_tokens(example, numbers, comma):
    """The suffix fed after the prompt: each agent's number but the last, with its comma."""
    out = []
    for label in example["labels"][:-1]:
        out += [numbers[label], comma]
    return out


class LowerLayers:
    """The frozen layers below the adapter, run once per example and kept: the shared prefix
    at start, each example's rest the first time a batch or the held-out set needs it (500
    steps of 8 draw about a third of 10,000 examples, so computing all of them first spent
    most of a round's time on states never read). Saved beside the checkpoint, so a resumed
    run finds what it had computed and goes on with the same groups as an unbroken one."""

    GROUP = 16
    """Examples run together: one matrix product serves them all."""

    def __init__(self, model: Gemma3, low: list[int], prefix: list[int], rest_of, path: Path):
        self.model, self.low, self.rest_of, self.path = model, low, rest_of, path
        self.P = len(prefix)
        with torch.no_grad():
            x, pos, self.past = model.embed(prefix)[None], torch.arange(self.P), []
            for layer in low:
                x, kv = model.block(layer, x, pos, None)
                self.past.append(kv)
        self.prefix = x[0]
        self.suffixes: dict[int, torch.Tensor] = torch.load(path) if path.exists() else {}
        self.saved = len(self.suffixes)

    def states(self, idx) -> dict[int, torch.Tensor]:
        """The lower layers' output for the tokens after the prefix of each example in `idx`."""
        missing = sorted({int(i) for i in idx if int(i) not in self.suffixes}, key=lambda i: (len(self.rest_of(i)), i))
        started = time.time()
        with torch.no_grad():
            for n in range(0, len(missing), self.GROUP):
                group = missing[n : n + self.GROUP]
                x, pos = padded([self.model.embed(self.rest_of(i)) for i in group], self.P)
                for j, layer in enumerate(self.low):
                    x, _ = self.model.block(layer, x, pos, self.past[j])
                for row, i in enumerate(group):
                    self.suffixes[i] = x[row, : len(self.rest_of(i))].to(torch.float16)
        if len(missing) > self.GROUP:
            log("lower layers", computed=len(missing), seconds=round(time.time() - started))
        return {int(i): self.suffixes[int(i)].float() for i in idx}

    def save(self) -> None:
        if len(self.suffixes) == self.saved:
            return
        tmp = self.path.with_suffix(".tmp")
        torch.save(self.suffixes, tmp)
        os.replace(tmp, self.path)
        self.saved = len(self.suffixes)


# ---------------------------------------------------------------------------------------
# Training.
# ---------------------------------------------------------------------------------------
def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", required=True, help="folder with data.jsonl and meta.json; checkpoints go here too")
    p.add_argument("--out", required=True, help="the adapter GGUF to write")
    for f in dataclasses.fields(Settings):
        p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = p.parse_args()
    s = Settings(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Settings)})
    work = Path(args.work)
    torch.manual_seed(s.seed)
    torch.set_num_threads(s.threads)
    meta = json.loads((work / "meta.json").read_text())
    examples = read_examples(work / "data.jsonl")
    numbers = torch.tensor(meta["numberTokens"])
    comma = int(meta["comma"])

    started = time.time()
    model = Gemma3(meta["base"]["path"])
    if s.layers < 1 or s.layers > model.layers:
        raise SystemExit(f"--layers must be 1-{model.layers}")
    log("loaded", seconds=round(time.time() - started, 1), layers=model.layers)
    top = list(range(model.layers - s.layers, model.layers))
    low = list(range(model.layers - s.layers))

    # LoRA: A small random, B zero (the adapter starts as the base model).
    gen = torch.Generator().manual_seed(s.seed)
    for layer in top:
        for name in TARGETS:
            out_f, in_f = model.w[f"blk.{layer}.{name}.weight"].shape
            a = (torch.randn(s.rank, in_f, generator=gen) / math.sqrt(in_f)).requires_grad_()
            b = torch.zeros(out_f, s.rank).requires_grad_()
            model.lora[(layer, name)] = (a, b)
    model.scale = s.alpha / s.rank
    if s.init:
        load_lora(model, s, Path(s.init))
        log("init", adapter=s.init)

    # The layers below the adapter, run once: the shared prefix, then each example's rest.
    P = shared_prefix(examples)
    prefix = examples[0]["tokens"][:P]
    def rest_of(i):
        """An example's tokens after the shared prefix, with its fed answer."""
        return examples[i]["tokens"][P:] + answer_tokens(examples[i], numbers.tolist(), comma)

    digest = hashlib.sha256(json.dumps([meta["base"]["sha256"], s.layers, [e["tokens"] + answer_tokens(e, numbers.tolist(), comma) for e in examples]]).encode()).hexdigest()[:16]
    lower = LowerLayers(model, low, prefix, rest_of, work / f"low-{digest}.pt")
    log("lower layers", cached=len(lower.suffixes), examples=len(examples), prefix=P)
    prefix_low = lower.prefix

    def batch_loss(idx):
        """Mean cross-entropy over the numbers of every taught agent of the examples `idx`, weighted."""
        x, pos, past = prefix_low[None], torch.arange(P), []
        with torch.set_grad_enabled(torch.is_grad_enabled() and bool(s.prefix_grad)):
            for layer in top:
                x, kv = model.block(layer, x, pos, None)
                past.append(kv)
        suffixes = lower.states(idx)
        x, pos = padded([suffixes[i] for i in idx], P)
        for j, layer in enumerate(top):
            x, _ = model.block(layer, x, pos, past[j])
        total, weight, correct, count = 0.0, 0.0, 0, 0
        for row, i in enumerate(idx):
            e = examples[i]
            agents, length = len(e["labels"]), suffixes[i].shape[0]
            # Where each agent's number is read: the prompt's last token, then each comma.
            at = [length - 1 - 2 * (agents - 1 - a) for a in range(agents)]
            logits = model.logits(x[row, at], numbers)
            target = torch.tensor(e["labels"])
            taught = torch.tensor(e.get("taught", [True] * agents))
            w = float(e.get("weight", 1.0))
            losses = torch.nn.functional.cross_entropy(logits, target, reduction="none")
            total = total + w * losses[taught].sum()
            weight += w * int(taught.sum())
            correct += int(((logits.argmax(-1) == target) & taught).sum())
            count += int(taught.sum())
        return total / max(weight, 1e-9), correct, count

    train = [i for i, e in enumerate(examples) if e.get("split", "train") == "train"]
    held = [i for i, e in enumerate(examples) if e.get("split") == "held"]
    params = [t for pair in model.lora.values() for t in pair]
    opt = torch.optim.Adam(params, lr=s.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda k: (k + 1) / s.warmup if k < s.warmup else 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (k - s.warmup) / max(s.steps - s.warmup, 1)))
    )
    step, history = 0, []
    ckpt = work / "checkpoint.pt"
    if ckpt.exists():
        state = torch.load(ckpt)
        if state["settings"] == dataclasses.asdict(s) and state["digest"] == digest:
            with torch.no_grad():
                for key, (a, b) in state["lora"].items():
                    model.lora[tuple(key)][0].copy_(a)
                    model.lora[tuple(key)][1].copy_(b)
            opt.load_state_dict(state["opt"])
            sched.load_state_dict(state["sched"])
            step, history = state["step"], state["history"]
            log("resumed", step=step)

    def evaluate():
        if not held:
            return None
        with torch.no_grad():
            loss, correct, count = batch_loss(held)
        return {"loss": round(float(loss), 4), "agreement": round(correct / count, 4)}

    if step == 0:
        history.append({"step": 0, "held": evaluate()})
        log("eval", **history[-1])
        lower.save()
    rng = np.random.default_rng(s.seed)
    for _ in range(step):  # the same batches as an unbroken run
        rng.choice(train, min(s.batch, len(train)), replace=False)
    t = time.time()
    while step < s.steps:
        idx = rng.choice(train, min(s.batch, len(train)), replace=False)
        loss, correct, count = batch_loss(idx)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        step += 1
        log("step", step=step, of=s.steps, loss=round(loss.item(), 4), agreement=round(correct / count, 3), seconds=round(time.time() - t, 1))
        if step % s.eval_every == 0 or step == s.steps:
            history.append({"step": step, "train_loss": round(loss.item(), 4), "held": evaluate()})
            log("eval", **history[-1])
        if step % s.checkpoint_every == 0 or step == s.steps:
            lower.save()
            torch.save(
                {
                    "settings": dataclasses.asdict(s),
                    "digest": digest,
                    "lora": {k: (a.detach(), b.detach()) for k, (a, b) in model.lora.items()},
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "step": step,
                    "history": history,
                },
                ckpt,
            )

    write_adapter(model, s, Path(args.out))
    seconds = round(time.time() - started)
    (work / "metrics.json").write_text(json.dumps({"settings": dataclasses.asdict(s), "examples": {"train": len(train), "held": len(held)}, "sharedPrefix": P, "lora": {"layers": top, "targets": list(TARGETS)}, "history": history, "seconds": seconds}, indent=1))
    ckpt.unlink(missing_ok=True)
    log("done", out=args.out, seconds=round(time.time() - started))


def load_lora(model: Gemma3, s: Settings, path: Path) -> None:
    """Copy an adapter's LoRA weights (written by write_adapter) into the model's, refusing one
    of other layers, rank or alpha by name."""
    if not path.exists():
        raise SystemExit(f"--init {path}: no such adapter file")
    reader = GGUFReader(str(path))
    alpha = float(_field(reader, "adapter.lora.alpha"))
    if alpha != s.alpha:
        raise SystemExit(f"--init {path}: its alpha is {alpha}, this run's {s.alpha}: expected the same --alpha")
    tensors = {t.name: t for t in reader.tensors}
    expected = {f"blk.{layer}.{name}.weight.{suffix}" for (layer, name) in model.lora for suffix in ("lora_a", "lora_b")}
    extra = sorted(set(tensors) - expected)
    if extra:
        raise SystemExit(f"--init {path} has tensors this run does not tune ({', '.join(extra[:4])}{', ...' if len(extra) > 4 else ''}): expected an adapter of --layers {s.layers}")
    with torch.no_grad():
        for (layer, name), pair in model.lora.items():
            for suffix, param in zip(("lora_a", "lora_b"), pair):
                key = f"blk.{layer}.{name}.weight.{suffix}"
                t = tensors.get(key)
                if t is None or tuple(t.data.shape) != tuple(param.shape):
                    found = "none" if t is None else "x".join(map(str, t.data.shape))
                    raise SystemExit(f"--init {path}: {key} is {found}, expected {'x'.join(map(str, param.shape))} (an adapter of --layers {s.layers} and --rank {s.rank})")
                param.copy_(torch.from_numpy(np.array(t.data, dtype=np.float32)))


def write_adapter(model: Gemma3, s: Settings, out: Path) -> None:
    """llama.cpp's LoRA GGUF: general.type adapter, adapter.type lora, adapter.lora.alpha,
    and per tuned weight `<name>.lora_a` (rank x in) and `<name>.lora_b` (out x rank)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    w = GGUFWriter(str(tmp), arch="gemma3")
    w.add_string("general.type", "adapter")
    w.add_string("adapter.type", "lora")
    w.add_float32("adapter.lora.alpha", float(s.alpha))
    for (layer, name), (a, b) in sorted(model.lora.items()):
        w.add_tensor(f"blk.{layer}.{name}.weight.lora_a", a.detach().numpy().astype(np.float32))
        w.add_tensor(f"blk.{layer}.{name}.weight.lora_b", b.detach().numpy().astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
