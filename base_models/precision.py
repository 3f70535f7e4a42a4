"""Which precision a recipe's `auto` resolves to on this machine, and why (said in the log)."""

from __future__ import annotations

from base_models.hardware import cpu_bf16_unit, isa_capped


def bf16_support(flags: set[str] | None = None) -> tuple[bool, str]:
    """(bf16 is worth using, the reason). GPUs answer through torch; CPUs through their flags:
    AMX-BF16 or AVX512-BF16 run bf16 matrix work natively (about 2x fp32 for LoRA steps here);
    without them bf16 is emulated and slower than fp32."""
    import torch

    if torch.cuda.is_available():
        ok = torch.cuda.is_bf16_supported()
        name = torch.cuda.get_device_name(0)
        return ok, f"GPU {name} {'supports' if ok else 'does not support'} bf16"
    unit = cpu_bf16_unit(flags)
    if unit is not None:
        return True, f"CPU has {unit}"
    capped = isa_capped() if flags is None else None
    if capped:
        return False, f"{capped} caps the kernels below the bf16 units: bf16 would be emulated"
    return False, "CPU has neither AMX-BF16 nor AVX512-BF16: bf16 would be emulated"


def resolve(precision: str, flags: set[str] | None = None) -> tuple[str, str, str]:
    """(precision, model dtype, reason) for a recipe's precision setting."""
    if precision == "bf16":
        return "bf16", "bfloat16", "set in the recipe"
    if precision == "fp32":
        return "fp32", "float32", "set in the recipe"
    ok, why = bf16_support(flags)
    return ("bf16", "bfloat16", why) if ok else ("fp32", "float32", why)
