"""Needs PyTorch and transformers, no GPU: tileglu.patch / unpatch on tiny randomly initialised
Qwen2, Llama and Mistral models. On CPU the fused op cannot run, so these tests swap the op for
its PyTorch reference (tileglu._patch.swiglu) to check what the patched forward computes, and
check separately that the real op is what a patched module calls."""
import warnings

import pytest

from conftest import need_torch

torch = need_torch()
transformers = pytest.importorskip("transformers", reason="transformers is not importable")

import tileglu  # noqa: E402
from tileglu import _patch  # noqa: E402

TINY = dict(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


def tiny(kind, **overrides):
    cfg_cls, model_cls = {
        "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM),
        "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
        "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM),
    }[kind]
    torch.manual_seed(0)
    model = model_cls(cfg_cls(**{**TINY, **overrides}))
    return model.eval()


def tokens():
    return torch.randint(0, TINY["vocab_size"], (2, 7), generator=torch.Generator().manual_seed(1))


def mlp_names(model):
    return [n for n, m in model.named_modules() if type(m).__name__ in _patch.MLP_CLASS_NAMES]


@pytest.fixture
def reference_op(monkeypatch):
    """The patched forward's swiglu replaced by the PyTorch reference, recording its calls."""
    calls = []

    def op(x, w_gate, w_up):
        calls.append((x, w_gate, w_up))
        return tileglu.swiglu_reference(x, w_gate, w_up)

    monkeypatch.setattr(_patch, "swiglu", op)
    return calls


@pytest.mark.parametrize("kind, mlp_class", [("qwen2", "Qwen2MLP"), ("llama", "LlamaMLP"),
                                             ("mistral", "MistralMLP")])
def test_patch_replaces_exactly_the_mlps_and_unpatch_restores_them(kind, mlp_class, reference_op):
    model = tiny(kind)
    ids = tokens()
    with torch.no_grad():
        stock = model(ids).logits
    params = {n: p.data_ptr() for n, p in model.named_parameters()}
    before = {n: dict(m.__dict__) for n, m in model.named_modules()}

    names = tileglu.patch(model)
    assert names == [f"model.layers.{i}.mlp" for i in range(TINY["num_hidden_layers"])]
    assert names == mlp_names(model)
    for name, module in model.named_modules():
        if name in names:
            assert type(module).__name__ == mlp_class and _patch.is_patched(module)
            assert module.forward.__func__ is _patch._fused_forward
        else:
            assert not _patch.is_patched(module) and "forward" not in module.__dict__, name
    # No weight was copied, added or moved.
    assert {n: p.data_ptr() for n, p in model.named_parameters()} == params

    with torch.no_grad():
        patched = model(ids).logits
    assert len(reference_op) == TINY["num_hidden_layers"]
    for (x, wg, wu), name in zip(reference_op, names):
        mlp = model.get_submodule(name)
        assert wg is mlp.gate_proj.weight and wu is mlp.up_proj.weight   # gate first, no copies
        assert x.shape == (2, 7, TINY["hidden_size"])
    torch.testing.assert_close(patched, stock, rtol=1e-4, atol=1e-4)

    assert tileglu.patch(model) == []   # already patched: nothing more to do
    assert tileglu.unpatch(model) == names
    for name, module in model.named_modules():
        assert module.__dict__.keys() == before[name].keys(), name
        assert module.forward.__func__ is type(module).forward
    with torch.no_grad():
        assert torch.equal(model(ids).logits, stock)
    assert tileglu.unpatch(model) == []


def test_patched_forward_reads_the_live_weights(reference_op):
    model = tiny("qwen2")
    tileglu.patch(model)
    mlp = model.model.layers[0].mlp
    x = torch.randn(3, TINY["hidden_size"])
    with torch.no_grad():
        before = mlp(x)
        mlp.up_proj.weight.mul_(2)   # in place, as load_state_dict does
        after = mlp(x)
    torch.testing.assert_close(after, 2 * before, rtol=1e-5, atol=1e-6)


def test_patched_module_calls_the_fused_op():
    """Unswapped, a patched module runs tileglu.swiglu, whose checks reject CPU tensors."""
    model = tiny("llama").to(torch.bfloat16)
    tileglu.patch(model)
    with torch.no_grad(), pytest.raises(tileglu.TileGluValueError, match="x is on cpu"):
        model(tokens())
    tileglu.unpatch(model)
    with torch.no_grad():
        assert model(tokens()).logits.shape == (2, 7, TINY["vocab_size"])


@pytest.mark.parametrize("kind, overrides, reason", [
    ("qwen2", dict(hidden_act="gelu"), "act_fn is GELUActivation, not SiLU"),
    ("llama", dict(mlp_bias=True), "gate_proj or up_proj has a bias"),
    ("llama", dict(intermediate_size=100), "intermediate size 100 is not a multiple of 8"),
])
def test_unsupported_mlps_are_left_alone_with_a_warning(kind, overrides, reason):
    model = tiny(kind, **overrides)
    with pytest.warns(UserWarning) as record:
        assert tileglu.patch(model) == []
    messages = [str(w.message) for w in record]
    assert len(messages) == TINY["num_hidden_layers"]
    assert all(reason in m and "unpatched" in m for m in messages), messages
    assert messages[0].startswith("tileglu.patch: left model.layers.0.mlp")
    assert not any(_patch.is_patched(m) for m in model.modules())


def test_swish_counts_as_silu(reference_op):
    model = tiny("mistral", hidden_act="swish")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(tileglu.patch(model)) == TINY["num_hidden_layers"]


def test_unpatch_restores_an_instance_forward_set_by_someone_else(reference_op):
    model = tiny("qwen2")
    mlp = model.model.layers[1].mlp
    hooked = mlp.forward   # a bound method stored on the instance, as accelerate's hooks do
    mlp.forward = hooked
    tileglu.patch(model)
    assert mlp.forward is not hooked
    tileglu.unpatch(model)
    assert mlp.__dict__["forward"] is hooked
    assert "forward" not in model.model.layers[0].mlp.__dict__


def test_patch_on_a_bare_mlp_module(reference_op):
    from transformers.models.qwen2.modeling_qwen2 import Qwen2MLP
    mlp = Qwen2MLP(transformers.Qwen2Config(**TINY))
    assert tileglu.patch(mlp) == [""]
    x = torch.randn(4, TINY["hidden_size"])
    want = mlp.down_proj(torch.nn.functional.silu(mlp.gate_proj(x)) * mlp.up_proj(x))
    torch.testing.assert_close(mlp(x), want, rtol=1e-5, atol=1e-5)
    assert tileglu.unpatch(mlp) == [""]
