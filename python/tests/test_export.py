"""The export path: a small network written by the onnx package, with its card, loads in
Hillmind (its digest, spec versions and probe checked through onnxruntime and the network
that plays) and acts as the same network does in numpy."""
from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

pytest.importorskip("onnx")

from hillmind._bridge import repository_root
from hillmind.export import OBS_SIZE, _forward, export_policy

LOAD = """
import { ModelLibrary } from './src/skills';
import { nodeModelSource } from './src/skills/nodeModels';
import { DEFAULT_CONFIG, idleAction } from './src/sim';
import { skillContext } from './src/skills/policy';
const [dir, obsJson] = process.argv.slice(-2);
const policy = await new ModelLibrary(nodeModelSource(dir)).load('navigate');
const obs = Float32Array.from(JSON.parse(obsJson));
const out = [idleAction(), idleAction()];
await policy.act(obs, 2, out, skillContext(DEFAULT_CONFIG));
console.log(JSON.stringify(out));
"""


def test_a_network_exported_from_python_loads_and_acts_in_hillmind(tmp_path):
    rng = np.random.default_rng(4)
    layers = [(rng.normal(0, 0.4, (OBS_SIZE, 16)), rng.normal(0, 0.1, 16)), (rng.normal(0, 0.4, (16, 5)), rng.normal(0, 0.1, 5))]
    mean, std = rng.normal(0, 0.1, OBS_SIZE), rng.uniform(0.5, 1.5, OBS_SIZE)
    card = export_policy(tmp_path, "navigate", layers, mean, std, training={"steps": 1000})
    assert card["network"]["hidden"] == [16]
    obs = rng.uniform(-1, 1, (2, OBS_SIZE)).astype(np.float32)
    run = subprocess.run(
        ["node", "--import", "tsx", "--input-type=module", "-e", LOAD, str(tmp_path), json.dumps(obs.ravel().tolist())],
        cwd=repository_root(), capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    actions = json.loads(run.stdout)
    expected = _forward(obs, mean.astype(np.float32), std.astype(np.float32), 5.0, layers)
    for a, e in zip(actions, expected):
        assert a["move"] == pytest.approx(float(np.clip(e[0], -1, 1)), abs=1e-5)
        assert a["turn"] == pytest.approx(float(np.clip(e[1], -1, 1)), abs=1e-5)
        assert a["fire"] == (1 if e[4] > 0 else 0)


def test_a_card_that_does_not_match_its_file_is_refused(tmp_path):
    rng = np.random.default_rng(5)
    layers = [(rng.normal(0, 0.4, (OBS_SIZE, 8)), np.zeros(8)), (rng.normal(0, 0.4, (8, 5)), np.zeros(5))]
    export_policy(tmp_path, "navigate", layers, np.zeros(OBS_SIZE), np.ones(OBS_SIZE))
    card = json.loads((tmp_path / "navigate.json").read_text())
    card["probe"]["outputs"][0][0] += 0.5
    (tmp_path / "navigate.json").write_text(json.dumps(card))
    run = subprocess.run(
        ["node", "--import", "tsx", "--input-type=module", "-e", LOAD, str(tmp_path), json.dumps([0.0] * (2 * OBS_SIZE))],
        cwd=repository_root(), capture_output=True, text=True,
    )
    assert run.returncode != 0
    assert "does not reproduce its card's probe" in run.stderr
