"""Finding and converting the embedded model; loading any local checkpoint."""

from __future__ import annotations

import importlib.util

import pytest

from policy import model as model_mod


def test_missing_wheel_says_what_to_run(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(model_mod.ModelNotAvailableError, match="make setup"):
        model_mod.find_embedded_gguf()


def test_not_a_checkpoint_folder_is_a_clear_error(tmp_path):
    with pytest.raises(model_mod.ModelNotAvailableError, match="not a folder"):
        model_mod.resolve_model_path(str(tmp_path / "nope"))
    with pytest.raises(model_mod.ModelNotAvailableError, match="config.json"):
        model_mod.resolve_model_path(str(tmp_path))


def test_prepare_is_idempotent(embedded, monkeypatch):
    def must_not_convert() -> None:
        raise AssertionError("an already converted model must not be converted again")

    monkeypatch.setattr(model_mod, "find_embedded_gguf", must_not_convert)
    assert model_mod.prepare_embedded() == embedded.path


def test_any_local_checkpoint_path_loads_the_same_way(embedded):
    loaded = model_mod.load_model(str(embedded.path))
    assert loaded.path == embedded.path
    assert loaded.tokenizer.padding_side == "left"
    assert loaded.tokenizer.pad_token is not None


def test_device_and_dtype_are_checked_before_anything_loads(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(model_mod, "resolve_model_path", lambda spec: pytest.fail("loaded before checking"))
    with pytest.raises(model_mod.DeviceError, match="torch sees no CUDA device"):
        model_mod.load_model("embedded", device="cuda")
    with pytest.raises(model_mod.DeviceError, match="unknown dtype 'float8'"):
        model_mod.load_model("embedded", dtype="float8")
    with pytest.raises(model_mod.DeviceError, match="unknown device 'tpu'"):
        model_mod.load_model("embedded", device="tpu")


def test_the_default_is_cpu_float32_and_auto_is_the_cpu_without_cuda(embedded, monkeypatch):
    import torch

    assert embedded.device == torch.device("cpu") and embedded.dtype == torch.float32
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    loaded = model_mod.load_model(str(embedded.path), device="auto", dtype="auto")
    assert loaded.device.type == "cpu" and loaded.dtype == torch.float32
