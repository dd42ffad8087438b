"""Export a policy trained in Python so Hillmind plays it: `export_policy` writes
<dir>/<name>.onnx in the graph Hillmind's loader reads (src/skills/policyNetwork.ts):

    Sub(obs, obs_mean) -> Div(., obs_std) -> Clip(., -clip, clip) -> [Gemm -> Tanh]* -> Gemm

with input "obs" [batch, 20] and output "action_mean" [batch, 5] (move, turn and strafe
means, dash and fire logits), and <dir>/<name>.json, the card Hillmind checks it against: spec
versions, the file's SHA-256, and a probe (observations and the outputs this exporter
computed for them, which the loader reproduces through onnxruntime and its own network).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

OBS_SIZE = 5 * 4  # the 20-number observation
OUTPUT_LAYOUT = ["move_mean", "turn_mean", "strafe_mean", "dash_logit", "fire_logit"]


def _forward(obs: np.ndarray, obs_mean: np.ndarray, obs_std: np.ndarray, clip: float, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    x = np.clip(((obs.astype(np.float32) - obs_mean) / obs_std).astype(np.float32), -clip, clip)
    for i, (w, b) in enumerate(layers):
        x = (x.astype(np.float64) @ w.astype(np.float64) + b).astype(np.float32)
        if i < len(layers) - 1:
            x = np.tanh(x).astype(np.float32)
    return x


def export_policy(
    directory: str | Path,
    name: str,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
    obs_mean: np.ndarray,
    obs_std: np.ndarray,
    *,
    clip: float = 5.0,
    kind: str = "skill",
    log_std: Sequence[float] = (-1.0, -1.0, -1.0),
    training: dict[str, Any] | None = None,
    evaluation: dict[str, Any] | None = None,
    obs_spec_version: int = 1,
    action_spec_version: int = 1,
    probe_seed: int = 0,
) -> dict[str, Any]:
    """Write the model and its card; returns the card. `layers` are (weight [in, out], bias [out])."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    obs_mean = np.asarray(obs_mean, np.float32)
    obs_std = np.asarray(obs_std, np.float32)
    if obs_mean.shape != (OBS_SIZE,) or obs_std.shape != (OBS_SIZE,):
        raise ValueError(f"obs_mean and obs_std must have {OBS_SIZE} values, got {obs_mean.shape} and {obs_std.shape}")
    if layers[0][0].shape[0] != OBS_SIZE or layers[-1][0].shape[1] != len(OUTPUT_LAYOUT):
        raise ValueError(f"the network must map {OBS_SIZE} inputs to {len(OUTPUT_LAYOUT)} outputs")
    inits = [
        numpy_helper.from_array(obs_mean, "obs_mean"),
        numpy_helper.from_array(obs_std, "obs_std"),
        numpy_helper.from_array(np.array(-clip, np.float32), "obs_clip_min"),
        numpy_helper.from_array(np.array(clip, np.float32), "obs_clip_max"),
    ]
    nodes = [
        helper.make_node("Sub", ["obs", "obs_mean"], ["obs_centered"]),
        helper.make_node("Div", ["obs_centered", "obs_std"], ["obs_scaled"]),
        helper.make_node("Clip", ["obs_scaled", "obs_clip_min", "obs_clip_max"], ["obs_norm"]),
    ]
    x = "obs_norm"
    for i, (w, b) in enumerate(layers):
        last = i == len(layers) - 1
        inits += [numpy_helper.from_array(np.asarray(w, np.float32), f"layer{i}.weight"), numpy_helper.from_array(np.asarray(b, np.float32), f"layer{i}.bias")]
        out = "action_mean" if last else f"layer{i}.pre"
        nodes.append(helper.make_node("Gemm", [x, f"layer{i}.weight", f"layer{i}.bias"], [out]))
        if not last:
            nodes.append(helper.make_node("Tanh", [out], [f"layer{i}.act"]))
            x = f"layer{i}.act"
    graph = helper.make_graph(
        nodes,
        "hillmind_policy",
        [helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", OBS_SIZE])],
        [helper.make_tensor_value_info("action_mean", TensorProto.FLOAT, ["batch", len(OUTPUT_LAYOUT)])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="hillmind-python")
    model.ir_version = 7
    onnx.checker.check_model(model)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    data = model.SerializeToString()
    (directory / f"{name}.onnx").write_bytes(data)

    probe_in = np.random.default_rng(probe_seed).uniform(-1, 1, (4, OBS_SIZE)).astype(np.float32)
    probe_out = _forward(probe_in, obs_mean, obs_std, clip, layers)
    card = {
        "format": "hillmind-policy",
        "version": 1,
        "name": name,
        "kind": kind,
        "obsSpecVersion": obs_spec_version,
        "actionSpecVersion": action_spec_version,
        "sha256": hashlib.sha256(data).hexdigest(),
        "io": {"input": "obs", "output": "action_mean", "inputShape": ["batch", OBS_SIZE], "outputShape": ["batch", len(OUTPUT_LAYOUT)], "outputLayout": OUTPUT_LAYOUT},
        "network": {"hidden": [int(w.shape[1]) for w, _ in layers[:-1]], "activation": "tanh"},
        "logStd": [float(v) for v in log_std],
        "probe": {"inputs": probe_in.tolist(), "outputs": probe_out.tolist(), "tolerance": 1e-4},
        "training": {
            "scenario": name,
            "opponent": "unknown",
            "config": {},
            "seed": 0,
            "steps": 0,
            "wallSeconds": 0,
            "stepsPerSecond": 0,
            "reproduce": "trained in Python (see docs/python.md)",
            **(training or {}),
        },
        "curve": {"points": [], "finalMeanReturn": None, "plot": ""},
        "evaluation": evaluation,
        "createdAt": _dt.datetime.now(_dt.timezone.utc).isoformat(),
    }
    (directory / f"{name}.json").write_text(json.dumps(card, indent=1) + "\n")
    return card
